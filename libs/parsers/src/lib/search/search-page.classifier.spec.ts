// The walls Google answers with instead of results, named: on the real captures in ../shared/fixtures/serp (skipped
// with a message when absent) and on our small pages in __fixtures__.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixturesAvailable, listFixtures, readFixture } from '../../testing/fixtures.reader.js';
import { UpstreamWallError, WALL_NAMES, wallOf } from '../wall/index.js';
import { classifySearchWall, parseSearchPage } from './index.js';

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

describe('classifySearchWall and the walls parseSearchPage names (our pages)', () => {
  it.each([
    ['serp-captcha.html', 'unusual-traffic'],
    ['serp-consent.html', 'consent'],
  ] as const)('%s is the %s', (name, wall) => {
    const html = local(name);
    expect(classifySearchWall(html)).toBe(wall);
    const error = thrownBy(() => parseSearchPage(html));
    expect(error).toBeInstanceOf(UpstreamWallError);
    expect(error).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryable: true, wall });
    expect((error as Error).message).toContain(WALL_NAMES[wall]);
  });

  it('names a consent interstitial whose forms post to a consent /save path and carry set_eom', () => {
    const html =
      '<html><head><title>Google</title></head><body><form action="/consent/save" method="POST"><input type="hidden" name="set_eom" value="true"><button>Reject all</button></form></body></html>';
    expect(classifySearchWall(html)).toBe('consent');
  });

  it("names a consent interstitial whose forms carry `continue` (as consent.google.com's do) consent, not captcha", () => {
    const html =
      '<html><head><title>Before you continue to Google</title></head><body><form action="https://consent.google.com/save" method="POST"><input type="hidden" name="continue" value="https://www.google.com/search?q=tea"><input type="hidden" name="set_eom" value="true"><button>Reject all</button></form></body></html>';
    expect(classifySearchWall(html)).toBe('consent');
  });

  it('passes results pages (with or without results) and leaves other pages unnamed', () => {
    for (const name of ['serp-organic-rich.html', 'serp-no-results.html', 'serp-nojs.html', 'not-a-serp.html']) {
      expect(classifySearchWall(local(name))).toBeUndefined();
    }
    expect(wallOf(thrownBy(() => parseSearchPage(local('not-a-serp.html'))))).toBeUndefined();
  });
});

const available = fixturesAvailable('serp');
(available ? describe : describe.skip)('classifySearchWall on the real Google captures', () => {
  it('names the 2026 captcha page the unusual-traffic page, and parseSearchPage says so', () => {
    const html = readFixture('serp', 'serp-openserp-2026-captcha.html');
    expect(classifySearchWall(html)).toBe('unusual-traffic');
    const error = thrownBy(() => parseSearchPage(html));
    expect(wallOf(error)).toBe('unusual-traffic');
    expect((error as Error).message).toMatch(/unusual-traffic page/);
  });

  it('names the enable-JavaScript wall: the real <noscript> refresh of a 2025 page, on a page without results', () => {
    const capture = readFixture('serp', 'serp-deepresearch-2025-ai-tools-ptbr.html');
    const noscript =
      /<noscript><style>table,div,span,p\{display:none\}<\/style><meta content="0;url=\/httpservice\/retry\/enablejs[\s\S]*?<\/noscript>/.exec(
        capture,
      )?.[0];
    expect(noscript).toBeDefined();
    const wall = `<!DOCTYPE html><html lang="pt-BR"><head><title>Pesquisa Google</title></head><body>${noscript}<script>/* proves itself, then reloads */</script></body></html>`;
    expect(classifySearchWall(wall)).toBe('enable-javascript');
    const error = thrownBy(() => parseSearchPage(wall));
    expect(wallOf(error)).toBe('enable-javascript');
    expect((error as Error).message).toMatch(/enable-JavaScript wall/);
  });

  it('does not take a real results page for a wall, though 2025+ results pages carry the same <noscript>', () => {
    const pages = listFixtures('serp', '.html').filter((f) => !f.includes('captcha'));
    expect(pages.length).toBeGreaterThan(5);
    for (const name of pages) expect([name, classifySearchWall(readFixture('serp', name))]).toEqual([name, undefined]);
  });
});
