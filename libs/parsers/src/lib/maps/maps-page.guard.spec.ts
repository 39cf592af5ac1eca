// The walls the maps upstream answers with instead of content, named: on the real captures in
// ../shared/fixtures/maps (skipped with a message when absent) and on our small pages in __fixtures__.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixturesAvailable, listFixtures, readFixture } from '../../testing/fixtures.reader.js';
import { WALL_NAMES, wallOf } from '../wall/index.js';
import { classifyMapsWall, parseMapsSearch, parsePlacePage } from './index.js';

const local = (name: string): string =>
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', name), 'utf8');

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, nothing was thrown');
}

const ctx = { q: 'pizza', hl: 'en', requestUrl: 'https://www.google.com/maps/search/pizza' };

describe('classifyMapsWall and the walls the maps parsers name (our pages)', () => {
  it.each([
    ['captcha.html', 'unusual-traffic'],
    ['consent.html', 'consent'],
  ] as const)('%s is the %s, in both parsers', (name, wall) => {
    const html = local(name);
    expect(classifyMapsWall(html)).toBe(wall);
    for (const parse of [() => parseMapsSearch(html, ctx), () => parsePlacePage(html, { url: ctx.requestUrl })]) {
      const error = thrownBy(parse);
      expect(error).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryable: true, wall });
      expect((error as Error).message).toContain(WALL_NAMES[wall]);
    }
  });

  it("names search's enable-JavaScript refresh on the maps JSON endpoint's answer", () => {
    const html =
      '<html><head><title>Google Search</title></head><body><noscript><meta content="0;url=/httpservice/retry/enablejs?sei=x" http-equiv="refresh"></noscript></body></html>';
    expect(classifyMapsWall(html)).toBe('enable-javascript');
    expect(wallOf(thrownBy(() => parseMapsSearch(html, ctx)))).toBe('enable-javascript');
  });

  it('leaves pages with content, JSON bodies and pages of another kind unnamed', () => {
    for (const name of ['place-embedded.html', 'place-rendered.html', 'search-list.html', 'not-maps.html']) {
      expect([name, classifyMapsWall(local(name))]).toEqual([name, undefined]);
    }
    expect(classifyMapsWall(local('search-response.json'))).toBeUndefined();
    // A script that merely mentions the block page's path does not make a page the block page.
    const page =
      '<html><head><title>Tea - Google Maps</title></head><body><h1>Tea</h1><script>var s="/sorry/index";</script></body></html>';
    expect(classifyMapsWall(page)).toBeUndefined();
  });
});

const available = fixturesAvailable('maps');
(available ? describe : describe.skip)('classifyMapsWall on the real maps captures', () => {
  it('does not take any real maps page or payload for a wall, though every page carries the <noscript>', () => {
    const files = listFixtures('maps').filter((f) => !f.endsWith('.expected.json'));
    expect(files.length).toBeGreaterThan(5);
    for (const name of files) expect([name, classifyMapsWall(readFixture('maps', name))]).toEqual([name, undefined]);
  });

  it("names maps' real <noscript> on a page without content the enable-JavaScript wall", () => {
    const capture = readFixture('maps', 'maps-cocli-2026-place-griffith-observatory.html');
    const noscript =
      /<noscript>(?:(?!<\/noscript>)[\s\S])*Enable JavaScript to see Google Maps[\s\S]*?<\/noscript>/.exec(
        capture,
      )?.[0];
    expect(noscript).toBeDefined();
    const wall = `<!DOCTYPE html><html lang="en"><head><title>Google Maps</title></head><body>${noscript}<script>/* proves itself, then reloads */</script></body></html>`;
    expect(classifyMapsWall(wall)).toBe('enable-javascript');
    // A script that would build the feed does not make the shell a page with content.
    const shell = wall.replace('/* proves itself, then reloads */', 'document.querySelector(\'[role="feed"]\')');
    expect(classifyMapsWall(shell)).toBe('enable-javascript');
    const error = thrownBy(() => parsePlacePage(wall, { url: 'https://www.google.com/maps/place/x' }));
    expect(wallOf(error)).toBe('enable-javascript');
    expect((error as Error).message).toMatch(/enable-JavaScript wall/);
  });
});
