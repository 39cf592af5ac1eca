import { describe, expect, it } from '@jest/globals';
import { TrawlError, type RenderPageReply, type RenderPageRequestDto } from '@trawl/contracts';
import { browserMayPass, combineAttempts, wallNamed } from './engine-attempts.policy.js';
import { UpstreamFetcher, type FetchFn, type FetchInit } from './upstream-fetcher.service.js';
import { UpstreamPageSource, cookieList, type RenderFn } from './upstream-page.source.js';

const JS_WALL = '<html><head><meta http-equiv="refresh" content="0;url=/httpservice/retry/enablejs"></head></html>';
const RESULTS = '<html><body><div id="results">tea</div></body></html>';
const CAPTCHA = '<html><body>unusual traffic</body></html>';

/** A parser standing in for the real ones: names the walls as the classifiers do. */
function parse(page: { html: string }): string {
  if (page.html.includes('enablejs'))
    throw new TrawlError('UPSTREAM_BLOCKED', 'Google asked for JavaScript (enable-JavaScript wall) instead of results');
  if (page.html.includes('unusual traffic'))
    throw new TrawlError('UPSTREAM_BLOCKED', 'Google answered with its "unusual traffic" page (unusual-traffic page)');
  if (page.html.includes('consent'))
    throw new TrawlError('UPSTREAM_BLOCKED', 'Google answered with its consent interstitial instead of results');
  const m = /id="results">([^<]*)</.exec(page.html);
  if (!m) throw new TrawlError('PAGE_NOT_RECOGNISED', 'not a results page');
  return m[1];
}

/** Stub HTTP: every URL answers `html` with 200; records what was fetched and with which headers. */
function stubHttp(answer: (url: string) => { status?: number; html: string }) {
  const fetched: { url: string; init: FetchInit }[] = [];
  const fetch: FetchFn = (url, init) => {
    fetched.push({ url, init });
    const a = answer(url);
    return Promise.resolve({
      status: a.status ?? 200,
      url,
      headers: { get: (n: string) => (n === 'content-type' ? 'text/html' : null) },
      text: () => Promise.resolve(a.html),
    });
  };
  return { fetcher: new UpstreamFetcher({ fetch }), fetched };
}

/** Stub fleet: renders `html`; records the requests. */
function stubRender(answer: (req: RenderPageRequestDto) => Partial<RenderPageReply> & { html: string }) {
  const renders: RenderPageRequestDto[] = [];
  const render: RenderFn = (req) => {
    renders.push(req);
    const a = answer(req);
    return Promise.resolve({ url: req.url, status: 200, headers: { 'content-type': 'text/html' }, renderMs: 5, ...a });
  };
  return { render, renders };
}

const page = (source: UpstreamPageSource, extra: Partial<Parameters<UpstreamPageSource['get']>[0]> = {}) =>
  source.get(
    { url: 'http://sim.test/search?q=tea', what: 'search page', deadline: source.deadline(5000), ...extra },
    parse,
  );

describe('UpstreamPageSource', () => {
  it('http: fetches and parses, never renders', async () => {
    const { fetcher, fetched } = stubHttp(() => ({ html: RESULTS }));
    const { render, renders } = stubRender(() => ({ html: RESULTS }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'http', browserMemoryMs: 60_000 });
    await expect(page(source)).resolves.toEqual({ value: 'tea', engine: 'http' });
    expect(fetched).toHaveLength(1);
    expect(renders).toHaveLength(0);
  });

  it('http: a JavaScript wall is UPSTREAM_BLOCKED naming the engine and the wall, and no browser is tried', async () => {
    const { fetcher } = stubHttp(() => ({ html: JS_WALL }));
    const { render, renders } = stubRender(() => ({ html: RESULTS }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'auto', browserMemoryMs: 60_000 });
    const err = await page(source, { engine: 'http' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('UPSTREAM_BLOCKED');
    expect((err as TrawlError).message).toBe('http: enable-JavaScript wall');
    expect((err as TrawlError).retryable).toBe(true);
    expect(renders).toHaveLength(0);
  });

  it('browser: renders the browser URL with hl, gl and cookies, parses with the same parser', async () => {
    const { fetcher, fetched } = stubHttp(() => ({ html: JS_WALL }));
    const { render, renders } = stubRender(() => ({ html: RESULTS }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'http', browserMemoryMs: 60_000 });
    const res = await page(source, {
      engine: 'browser',
      browserUrl: 'http://sim.test/maps/search/tea',
      hl: 'de',
      gl: 'DE',
      cookies: [{ name: 'SOCS', value: 'x' }],
    });
    expect(res).toEqual({ value: 'tea', engine: 'browser' });
    expect(fetched).toHaveLength(0);
    expect(renders).toEqual([
      expect.objectContaining({
        url: 'http://sim.test/maps/search/tea',
        hl: 'de',
        gl: 'DE',
        what: 'search page',
        cookies: [{ name: 'SOCS', value: 'x' }],
        // One fleet session per upstream host, language and country: its cookies and identity last.
        session: 'upstream:sim.test:de:DE:0',
      }),
    ]);
    expect(renders[0].timeout).toBeGreaterThan(0);
    expect(renders[0].timeout).toBeLessThanOrEqual(5000);
  });

  it('browser: a rendered page feeds the drift metrics as a fetched one does (parsed, or not recognised)', async () => {
    const seen: string[] = [];
    const fetcher = new UpstreamFetcher({
      fetch: () => Promise.reject(new Error('no HTTP in this test')),
      upstreamHosts: ['sim.test'],
      parseObserver: {
        parsed: (r) => seen.push(`parsed ${String(r)}`),
        unrecognised: (u) => seen.push(`unrecognised ${u}`),
      },
    });
    let html = RESULTS;
    const { render } = stubRender(() => ({ html }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'browser', browserMemoryMs: 0 });
    await expect(page(source)).resolves.toEqual({ value: 'tea', engine: 'browser' });
    html = '<html><body>something else</body></html>';
    await expect(page(source)).rejects.toMatchObject({ code: 'PAGE_NOT_RECOGNISED' });
    // A wall is neither: the parser named it, it is not drift.
    html = CAPTCHA;
    await expect(page(source)).rejects.toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    expect(seen).toEqual(['parsed tea', 'unrecognised sim.test']);
  });

  it('auto: plain HTTP first, and nothing else when it has the content', async () => {
    const { fetcher, fetched } = stubHttp(() => ({ html: RESULTS }));
    const { render, renders } = stubRender(() => ({ html: RESULTS }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'auto', browserMemoryMs: 60_000 });
    await expect(page(source)).resolves.toEqual({ value: 'tea', engine: 'http' });
    expect(fetched).toHaveLength(1);
    expect(renders).toHaveLength(0);
  });

  it.each([
    ['a JavaScript wall', JS_WALL],
    ['a consent interstitial', '<html>consent</html>'],
    ['a page without the content the parser needs', '<html><body><div id="app"></div></body></html>'],
  ])('auto: %s over HTTP → the same URL rendered and parsed by the same parser', async (_what, html) => {
    const { fetcher, fetched } = stubHttp(() => ({ html }));
    const { render, renders } = stubRender(() => ({ html: RESULTS }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'auto', browserMemoryMs: 60_000 });
    await expect(page(source)).resolves.toEqual({ value: 'tea', engine: 'browser' });
    expect(fetched.map((f) => f.url)).toEqual(['http://sim.test/search?q=tea']);
    expect(renders.map((r) => r.url)).toEqual(['http://sim.test/search?q=tea']);
  });

  it('auto: a captcha over HTTP is not sent to a browser (it would meet the same answer)', async () => {
    const { fetcher } = stubHttp(() => ({ html: CAPTCHA }));
    const { render, renders } = stubRender(() => ({ html: RESULTS }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'auto', browserMemoryMs: 60_000 });
    await expect(page(source)).rejects.toMatchObject({
      code: 'UPSTREAM_BLOCKED',
      message: 'http: unusual-traffic page',
    });
    expect(renders).toHaveLength(0);
  });

  it('auto: remembers a host that needed a browser, skips HTTP for it until the memory runs out', async () => {
    let now = 1_000_000;
    const { fetcher, fetched } = stubHttp(() => ({ html: JS_WALL }));
    const { render, renders } = stubRender(() => ({ html: RESULTS }));
    const source = new UpstreamPageSource({
      fetcher,
      render,
      defaultEngine: 'auto',
      browserMemoryMs: 60_000,
      now: () => now,
    });
    await page(source);
    expect([fetched.length, renders.length]).toEqual([1, 1]);
    now += 30_000;
    await expect(page(source, { url: 'http://sim.test/search?q=coffee' })).resolves.toEqual({
      value: 'tea',
      engine: 'browser',
    });
    expect([fetched.length, renders.length]).toEqual([1, 2]);
    // Another host is not affected.
    await page(source, { url: 'http://other.test/search?q=tea' });
    expect([fetched.length, renders.length]).toEqual([2, 3]);
    now += 31_000;
    await page(source);
    expect([fetched.length, renders.length]).toEqual([3, 4]);
  });

  it('auto: when every engine fails, one error names each engine and what stopped it', async () => {
    const { fetcher } = stubHttp(() => ({ html: JS_WALL }));
    const { render } = stubRender(() => ({ html: CAPTCHA }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'auto', browserMemoryMs: 60_000 });
    const err = (await page(source).catch((e: unknown) => e)) as TrawlError;
    expect(err.code).toBe('UPSTREAM_BLOCKED');
    expect(err.message).toBe('http: enable-JavaScript wall; browser: unusual-traffic page');
    expect(err.retryable).toBe(true);
    // The host is remembered: the next error says HTTP was skipped, and why.
    const next = (await page(source).catch((e: unknown) => e)) as TrawlError;
    expect(next.message).toBe('http: skipped (host remembered as needing a browser); browser: unusual-traffic page');
  });

  it('auto: a fleet that is not deployed is named too, and the code stays the blocking one', async () => {
    const { fetcher } = stubHttp(() => ({ html: JS_WALL }));
    const render: RenderFn = () =>
      Promise.reject(new TrawlError('SERVICE_UNAVAILABLE', 'extractor-scrape is not deployed or not reachable'));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'auto', browserMemoryMs: 0 });
    const err = (await page(source).catch((e: unknown) => e)) as TrawlError;
    expect(err.code).toBe('UPSTREAM_BLOCKED');
    expect(err.message).toBe(
      'http: enable-JavaScript wall; browser: extractor-scrape is not deployed or not reachable',
    );
  });

  it('auto without a fleet is plain HTTP; browser without one is SERVICE_UNAVAILABLE', async () => {
    const { fetcher } = stubHttp(() => ({ html: JS_WALL }));
    const source = new UpstreamPageSource({ fetcher, defaultEngine: 'auto', browserMemoryMs: 60_000 });
    await expect(page(source)).rejects.toMatchObject({
      code: 'UPSTREAM_BLOCKED',
      message: 'http: enable-JavaScript wall',
    });
    await expect(page(source, { engine: 'browser' })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('browser: an error status is the fetcher’s error unless the parser names a wall', async () => {
    const { fetcher } = stubHttp(() => ({ html: RESULTS }));
    const { render } = stubRender((req) =>
      req.url.includes('gone') ? { status: 404, html: 'nope' } : { status: 503, html: CAPTCHA },
    );
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'browser', browserMemoryMs: 0 });
    await expect(page(source, { url: 'http://sim.test/gone' })).rejects.toMatchObject({ code: 'UPSTREAM_NOT_FOUND' });
    await expect(page(source)).rejects.toMatchObject({
      code: 'UPSTREAM_BLOCKED',
      message: 'browser: unusual-traffic page',
    });
  });

  it("auto: after a render, plain HTTP claims the fleet's Chromium version and sends hl/gl's Accept-Language", async () => {
    const { fetcher, fetched } = stubHttp((url) => ({ html: url.includes('wall') ? JS_WALL : RESULTS }));
    const { render } = stubRender(() => ({ html: RESULTS, browserVersion: '171.0.7000.1' }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'auto', browserMemoryMs: 0 });
    await page(source, { url: 'http://wall.test/search?q=tea' });
    await page(source, { url: 'http://sim.test/search?q=tea', hl: 'de', gl: 'DE' });
    const last = fetched[fetched.length - 1].init.headers;
    expect(last['user-agent']).toContain('Chrome/171.0.0.0');
    expect(last['sec-ch-ua']).toContain('v="171"');
    expect(last['accept-language']).toMatch(/^de-DE,de;/);
  });

  it('browser: a session the upstream blocked is not used again; the next render asks the fleet to retire it', async () => {
    const { fetcher } = stubHttp(() => ({ html: RESULTS }));
    let blocked = true;
    const { render, renders } = stubRender(() => ({ html: blocked ? CAPTCHA : RESULTS }));
    const source = new UpstreamPageSource({ fetcher, render, defaultEngine: 'browser', browserMemoryMs: 0 });
    await expect(page(source)).rejects.toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    blocked = false;
    await expect(page(source)).resolves.toMatchObject({ value: 'tea', engine: 'browser' });
    await page(source);
    const [first, second, third] = renders;
    expect(second.session).not.toBe(first.session);
    expect(second.retireSession).toBe(first.session);
    expect(third.session).toBe(second.session);
  });

  it('sends cookies over HTTP as one cookie header', async () => {
    const { fetcher, fetched } = stubHttp(() => ({ html: RESULTS }));
    const source = new UpstreamPageSource({ fetcher, defaultEngine: 'http', browserMemoryMs: 0 });
    await page(source, { cookies: cookieList('CONSENT=PENDING+987; SOCS=abc') });
    expect(fetched[0].init.headers.cookie).toBe('CONSENT=PENDING+987; SOCS=abc');
  });
});

describe('engine attempts', () => {
  it('names the walls the classifiers word', () => {
    const blocked = (m: string) => new TrawlError('UPSTREAM_BLOCKED', m);
    expect(
      wallNamed(blocked('Google asked for JavaScript (enablejs redirect) instead of answering with results')),
    ).toBe('enable-JavaScript wall');
    expect(wallNamed(blocked('Amazon answered with its JavaScript challenge'))).toBe('JavaScript challenge');
    expect(wallNamed(blocked('Google answered with its cookie-consent interstitial instead of results'))).toBe(
      'consent interstitial',
    );
    expect(wallNamed(new TrawlError('UPSTREAM_ERROR', 'consent'))).toBeUndefined();
    // A classifier's own kind wins over the wording (the parsers' UpstreamWallError carries `wall`).
    const typed = Object.assign(blocked('Amazon answered with its robot check (captcha)'), {
      wall: 'javascript-challenge',
    });
    expect(wallNamed(typed)).toBe('JavaScript challenge');
    expect(browserMayPass(typed)).toBe(true);
    expect(browserMayPass(new TrawlError('PAGE_NOT_RECOGNISED', 'x'))).toBe(true);
    expect(browserMayPass(new TrawlError('UPSTREAM_TIMEOUT', 'x'))).toBe(false);
    expect(browserMayPass(blocked('sim.test blocked the request for the search page (HTTP 429)'))).toBe(false);
  });

  it('takes the most telling code, retryable when any part was', () => {
    const err = combineAttempts([
      { engine: 'http', error: new TrawlError('PAGE_NOT_RECOGNISED', 'not a results page') },
      { engine: 'browser', error: new TrawlError('UPSTREAM_TIMEOUT', 'the page did not finish before the deadline') },
    ]);
    expect(err.code).toBe('UPSTREAM_TIMEOUT');
    expect(err.retryable).toBe(true);
    expect(err.message).toBe('http: not a results page; browser: the page did not finish before the deadline');
  });
});
