import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ParseWorkPool } from './parse-work.pool.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../parsers/src/lib/maps/__fixtures__/${name}`, import.meta.url), 'utf8');

/**
 * A maps search page of result cards nested in one another, `chars` long. The parsers are linear on it (ADR 0020: the
 * open-element stack is capped), so it is its size that costs: 9 MB (under the upstream page cap of 10 MB) takes
 * seconds, many times the tight budget of the test that needs a page over its budget.
 */
function nestedCards(chars: number): string {
  const unit =
    '<div role="article" aria-label="x"><div role="feed"><a href="/maps/place/x/data=!3d1!4d2"><li><span>4.5</span>';
  return `<html><head><title>Google Maps</title></head><body><div role="feed">${unit.repeat(Math.ceil(chars / unit.length))}</div></body></html>`;
}

describe('ParseWorkPool (piscina worker threads)', () => {
  const pool = new ParseWorkPool({ threads: 2, budgetMs: 2_000 });

  afterAll(async () => {
    await pool.close();
  });

  it('parses a maps place page in a worker', async () => {
    const place = await pool.parse(
      { parser: 'maps-place', html: fixture('place-rendered.html'), url: 'https://www.google.com/maps/place/x' },
      'the place page',
    );
    expect(place.mp_company_name).toBeTruthy();
  });

  it("gives back the parser's own errors: a captcha is UPSTREAM_BLOCKED with its wall", async () => {
    await expect(
      pool.parse(
        { parser: 'maps-place', html: fixture('captcha.html'), url: 'https://www.google.com/maps/place/x' },
        'the place page',
      ),
    ).rejects.toMatchObject({ code: 'UPSTREAM_BLOCKED', wall: 'unusual-traffic' });
  });

  it('stops a parse over its budget with PAGE_TOO_COMPLEX while a small parse beside it answers', async () => {
    // A budget tight for a 9 MB page and wide for a 4 KB one (tens of milliseconds in a warm worker).
    const pool = new ParseWorkPool({ threads: 2, budgetMs: 400 });
    await pool.warmUp();
    const settled: string[] = [];
    const hostile = pool
      .parse(
        { parser: 'maps-search', html: nestedCards(9 * 1024 * 1024), q: 'x', hl: 'en', requestUrl: 'https://x/' },
        'the maps search page',
      )
      .then(
        () => settled.push('hostile answered'),
        (e: { code?: string }) => settled.push(`hostile ${e.code}`),
      );
    const small = pool
      .parse(
        { parser: 'maps-place', html: fixture('place-rendered.html'), url: 'https://www.google.com/maps/place/x' },
        'the place page',
      )
      .then((p) => settled.push(`small ${p.mp_company_name ? 'named' : 'unnamed'}`));
    await Promise.all([hostile, small]);
    expect(settled).toEqual(['small named', 'hostile PAGE_TOO_COMPLEX']);
    // The pool serves the next page after stopping a worker.
    const again = await pool.parse(
      { parser: 'maps-place', html: fixture('place-rendered.html'), url: 'https://www.google.com/maps/place/x' },
      'the place page',
    );
    expect(again.mp_company_name).toBeTruthy();
    await pool.close();
  }, 60_000);

  it('parses inline below the threshold, with the same errors', async () => {
    const inline = new ParseWorkPool({ threads: 1, budgetMs: 1_000, inlineBelowChars: Number.MAX_SAFE_INTEGER });
    await expect(
      inline.parse({ parser: 'search', html: '<html><body>nothing</body></html>' }, 'the search page'),
    ).rejects.toMatchObject({ code: 'PAGE_NOT_RECOGNISED' });
    expect(inline.stats().threads).toBe(0);
  });
});
