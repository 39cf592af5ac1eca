import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/contracts';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { Agent, type Dispatcher } from 'undici';
import { Deadline } from './deadline.policy.js';
import { ProxyRotation } from '@trawl/safe-fetch';
import { UpstreamFetcher, type FetchFn } from './upstream-fetcher.service.js';
import { AMAZON_HOST, GOOGLE_HOST, UpstreamOrigin } from './upstream-origin.policy.js';

/** Plain global fetch; the services pass the SSRF-guarded one. */
const plainFetch: FetchFn = (url, init) => fetch(url, init as RequestInit);

describe('UpstreamFetcher against a loopback upstream', () => {
  let upstream: LoopbackServer;
  const fetcher = new UpstreamFetcher({ fetch: plainFetch });

  beforeAll(async () => {
    upstream = await startLoopbackHttp((req, res) => {
      const path = req.url ?? '/';
      if (path === '/ok') {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end('<html><body>hello</body></html>');
      } else if (path === '/missing') {
        res.statusCode = 404;
        res.end('nope');
      } else if (path === '/gone') {
        res.statusCode = 410;
        res.end('gone');
      } else if (path === '/limited') {
        res.statusCode = 429;
        res.end('slow down');
      } else if (path === '/unavailable') {
        res.statusCode = 503;
        res.end('robot check');
      } else if (path === '/broken') {
        res.statusCode = 500;
        res.end('oops');
      } else if (path === '/forbidden') {
        res.statusCode = 403;
        res.end('no');
      } else if (path === '/to-captcha') {
        res.statusCode = 302;
        res.setHeader('location', '/sorry/index?continue=x');
        res.end();
      } else if (path.startsWith('/sorry/')) {
        res.end('<html>unusual traffic</html>');
      } else if (path === '/hang') {
        // never answers: the deadline must end the request
      } else {
        res.statusCode = 400;
        res.end();
      }
    });
  });

  afterAll(async () => {
    await fetcher.close();
    await upstream.close();
  });

  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'resolved',
      (e: unknown) => (e instanceof TrawlError ? e.code : String(e)),
    );

  it('returns the page body, status, final URL and content type', async () => {
    const page = await fetcher.fetchPage(`${upstream.url}/ok`, { timeoutMs: 5000 });
    expect(page).toMatchObject({ status: 200, url: `${upstream.url}/ok`, html: '<html><body>hello</body></html>' });
    expect(page.contentType).toContain('text/html');
  });

  it('sends Chrome-like headers with Accept-Language from hl', async () => {
    await fetcher.fetchPage(`${upstream.url}/ok`, { timeoutMs: 5000, hl: 'pt-BR' });
    const seen = upstream.requests.at(-1)?.headers ?? {};
    expect(seen['user-agent']).toMatch(/Chrome\/\d+/);
    expect(seen['accept-language']).toBe('pt-BR,pt;q=0.9,en;q=0.8');
    expect(seen['sec-ch-ua']).toContain('Chromium');
  });

  it('tells its parse observer of each parsed record and of each page the parser did not recognise, by host', async () => {
    const seen: string[] = [];
    const observed = new UpstreamFetcher({
      fetch: plainFetch,
      upstreamHosts: [new URL(upstream.url).host],
      parseObserver: {
        parsed: (r) => seen.push(`parsed ${JSON.stringify(r)}`),
        unrecognised: (u) => seen.push(`unrecognised ${u}`),
      },
    });
    await observed.fetchParsed(`${upstream.url}/ok`, { timeoutMs: 2000 }, () => ({ title: 'x' }));
    const refused = observed.fetchParsed(`${upstream.url}/ok`, { timeoutMs: 2000 }, () => {
      throw new TrawlError('PAGE_NOT_RECOGNISED', 'not a results page');
    });
    expect(await codeOf(refused)).toBe('PAGE_NOT_RECOGNISED');
    expect(seen).toEqual(['parsed {"title":"x"}', `unrecognised ${new URL(upstream.url).host}`]);
    await observed.close();
  });

  it("labels an unrecognised page of a host that is no known upstream 'other', never the caller's host", async () => {
    const seen: string[] = [];
    const observed = new UpstreamFetcher({
      fetch: (url) =>
        Promise.resolve({ status: 200, url, headers: { get: () => 'text/html' }, text: () => Promise.resolve('x') }),
      parseObserver: { parsed: () => undefined, unrecognised: (u) => seen.push(u) },
    });
    const unrecognised = () => {
      throw new TrawlError('PAGE_NOT_RECOGNISED', 'not a product page');
    };
    for (const url of ['https://tenant-a-secret.example/p/1', 'https://www.amazon.de/dp/B0TEST', `${upstream.url}/x`])
      expect(await codeOf(observed.fetchParsed(url, { timeoutMs: 2000 }, unrecognised))).toBe('PAGE_NOT_RECOGNISED');
    expect(seen).toEqual(['other', 'www.amazon.de', 'other']);
    await observed.close();
  });

  it('maps 404 and 410 to UPSTREAM_NOT_FOUND', async () => {
    expect(await codeOf(fetcher.fetchPage(`${upstream.url}/missing`, { timeoutMs: 5000 }))).toBe('UPSTREAM_NOT_FOUND');
    expect(await codeOf(fetcher.fetchPage(`${upstream.url}/gone`, { timeoutMs: 5000 }))).toBe('UPSTREAM_NOT_FOUND');
  });

  it('maps 429 and 503 to UPSTREAM_BLOCKED, which is retryable', async () => {
    const err = await fetcher.fetchPage(`${upstream.url}/limited`, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryable: true });
    expect(await codeOf(fetcher.fetchPage(`${upstream.url}/unavailable`, { timeoutMs: 5000 }))).toBe(
      'UPSTREAM_BLOCKED',
    );
  });

  it('maps a redirect to a /sorry/ captcha page to UPSTREAM_BLOCKED', async () => {
    expect(await codeOf(fetcher.fetchPage(`${upstream.url}/to-captcha`, { timeoutMs: 5000 }))).toBe('UPSTREAM_BLOCKED');
  });

  it('maps other 4xx and 5xx to UPSTREAM_ERROR', async () => {
    expect(await codeOf(fetcher.fetchPage(`${upstream.url}/broken`, { timeoutMs: 5000 }))).toBe('UPSTREAM_ERROR');
    expect(await codeOf(fetcher.fetchPage(`${upstream.url}/forbidden`, { timeoutMs: 5000 }))).toBe('UPSTREAM_ERROR');
  });

  it('maps a refused connection to UPSTREAM_ERROR', async () => {
    expect(await codeOf(fetcher.fetchPage('http://127.0.0.1:9/', { timeoutMs: 5000 }))).toBe('UPSTREAM_ERROR');
  });

  it('ends a request that outlives its deadline with UPSTREAM_TIMEOUT', async () => {
    const err = await fetcher.fetchPage(`${upstream.url}/hang`, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UPSTREAM_TIMEOUT', retryable: true });
  });

  it('does not start a fetch once the shared deadline has passed', async () => {
    let now = 1_000;
    const deadline = new Deadline(500, () => now);
    now += 500;
    const before = upstream.requests.length;
    expect(await codeOf(fetcher.fetchPage(`${upstream.url}/ok`, { deadline }))).toBe('UPSTREAM_TIMEOUT');
    expect(upstream.requests.length).toBe(before);
  });

  it('passes a TrawlError of the HTTP client (the SSRF guard) through unchanged', async () => {
    const guarded = new UpstreamFetcher({
      fetch: () => Promise.reject(new TrawlError('URL_NOT_ALLOWED', '10.0.0.1 is a private address')),
    });
    expect(await codeOf(guarded.fetchPage('http://10.0.0.1/', { timeoutMs: 1000 }))).toBe('URL_NOT_ALLOWED');
  });

  it('refuses a page larger than maxBytes by its content-length', async () => {
    const small = new UpstreamFetcher({ fetch: plainFetch, maxBytes: 10 });
    expect(await codeOf(small.fetchPage(`${upstream.url}/ok`, { timeoutMs: 5000 }))).toBe('CONTENT_TOO_LARGE');
  });
});

describe('UpstreamFetcher with proxies', () => {
  const ok = (body: string, status = 200) =>
    Promise.resolve({
      status,
      url: 'http://upstream.test/',
      headers: { get: () => null },
      text: () => Promise.resolve(body),
    });

  it('sends requests through the proxies in turn, each with its own dispatcher', async () => {
    const used: (Dispatcher | undefined)[] = [];
    const made: string[] = [];
    const fetcher = new UpstreamFetcher({
      fetch: (_url, init) => {
        used.push(init.dispatcher);
        return ok('x');
      },
      proxies: new ProxyRotation(['http://p1:8080', 'http://p2:8080']),
      proxyDispatcher: (p) => {
        made.push(p);
        return new Agent();
      },
    });
    const pages = [];
    for (let i = 0; i < 4; i++) pages.push(await fetcher.fetchPage('http://upstream.test/', { timeoutMs: 1000 }));
    expect(pages.map((p) => p.proxy)).toEqual(['http://p1:8080', 'http://p2:8080', 'http://p1:8080', 'http://p2:8080']);
    expect(made).toEqual(['http://p1:8080', 'http://p2:8080']);
    expect(used[0]).toBe(used[2]);
    expect(used[0]).not.toBe(used[1]);
    await fetcher.close();
  });

  it('sets a proxy aside after a 429 and uses the others until its cool-down ends', async () => {
    let now = 0;
    const proxies = new ProxyRotation(['http://p1', 'http://p2', 'http://p3'], { cooldownMs: 60_000, now: () => now });
    let status = 429;
    const fetcher = new UpstreamFetcher({
      fetch: () => ok('x', status),
      proxies,
      proxyDispatcher: () => new Agent(),
      now: () => now,
    });
    await expect(fetcher.fetchPage('http://upstream.test/', { timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'UPSTREAM_BLOCKED',
    });
    expect(proxies.resting('upstream.test')).toEqual(['http://p1']);
    status = 200;
    const next = [];
    for (let i = 0; i < 4; i++)
      next.push((await fetcher.fetchPage('http://upstream.test/', { timeoutMs: 1000 })).proxy);
    expect(next).toEqual(['http://p2', 'http://p3', 'http://p2', 'http://p3']);
    now += 60_000;
    expect(proxies.resting('upstream.test')).toEqual([]);
    expect((await fetcher.fetchPage('http://upstream.test/', { timeoutMs: 1000 })).proxy).toBe('http://p1');
    await fetcher.close();
  });

  it('sets the proxy aside when the parser finds a captcha in a 200 page', async () => {
    const proxies = new ProxyRotation(['http://p1', 'http://p2']);
    const fetcher = new UpstreamFetcher({ fetch: () => ok('captcha'), proxies, proxyDispatcher: () => new Agent() });
    const parse = (page: { html: string }) => {
      if (page.html === 'captcha') throw new TrawlError('UPSTREAM_BLOCKED', 'captcha page');
      return page.html;
    };
    await expect(fetcher.fetchParsed('http://upstream.test/', { timeoutMs: 1000 }, parse)).rejects.toMatchObject({
      code: 'UPSTREAM_BLOCKED',
    });
    expect(proxies.resting('upstream.test')).toEqual(['http://p1']);
    await fetcher.close();
  });

  it("sets a proxy aside only for the host that blocked it: one caller's target answering 429 cannot bench it for everyone", async () => {
    const proxies = new ProxyRotation(['http://p1', 'http://p2']);
    const fetcher = new UpstreamFetcher({
      fetch: (url) => ok('x', url.startsWith('http://callers-own.test/') ? 429 : 200),
      proxies,
      proxyDispatcher: () => new Agent(),
    });
    for (let i = 0; i < 2; i++)
      await expect(fetcher.fetchPage('http://callers-own.test/', { timeoutMs: 1000 })).rejects.toMatchObject({
        code: 'UPSTREAM_BLOCKED',
      });
    expect(proxies.resting('callers-own.test')).toEqual(['http://p1', 'http://p2']);
    expect(proxies.resting()).toEqual([]);
    const used = [];
    for (let i = 0; i < 2; i++)
      used.push((await fetcher.fetchPage('http://upstream.test/', { timeoutMs: 1000 })).proxy);
    expect(used.sort()).toEqual(['http://p1', 'http://p2']);
    expect(proxies.resting('upstream.test')).toEqual([]);
    await fetcher.close();
  });
});

describe('ProxyRotation', () => {
  it('has nothing to give without proxies', () => {
    expect(new ProxyRotation([]).next()).toBeUndefined();
  });

  it('uses the proxy whose cool-down ends first when all are resting', () => {
    let now = 0;
    const r = new ProxyRotation(['a', 'b'], { cooldownMs: 100, now: () => now });
    r.markBlocked('b');
    now = 10;
    r.markBlocked('a');
    expect(r.next()).toBe('b');
  });

  it('keeps a scoped mark to its scope, an unscoped one for every scope', () => {
    const r = new ProxyRotation(['a', 'b'], { cooldownMs: 100, now: () => 0 });
    r.markBlocked('a', 'x.test');
    expect([r.next('x.test'), r.next('x.test')]).toEqual(['b', 'b']);
    expect(r.resting('y.test')).toEqual([]);
    r.markBlocked('b');
    expect(r.resting('y.test')).toEqual(['b']);
    expect(r.resting('x.test')).toEqual(['a', 'b']);
  });

  it('holds at most maxMarks scoped marks, dropping the oldest', () => {
    const r = new ProxyRotation(['a'], { cooldownMs: 100, now: () => 0, maxMarks: 3 });
    for (const host of ['h1', 'h2', 'h3', 'h4']) r.markBlocked('a', host);
    expect(r.resting('h1')).toEqual([]);
    expect(['h2', 'h3', 'h4'].map((h) => r.resting(h))).toEqual([['a'], ['a'], ['a']]);
  });
});

describe('UpstreamOrigin', () => {
  it('re-points URLs of the real site at the simulator, path and query kept', () => {
    const sim = new UpstreamOrigin('http://127.0.0.1:8090', AMAZON_HOST);
    expect(sim.simulated).toBe(true);
    expect(sim.rebase('https://www.amazon.co.uk/Some-Thing/dp/B0TEST1234?th=1')).toBe(
      'http://127.0.0.1:8090/Some-Thing/dp/B0TEST1234?th=1',
    );
    expect(sim.rebase('https://example.com/dp/B0TEST1234')).toBe('https://example.com/dp/B0TEST1234');
  });

  it('leaves URLs alone when the base is the real site', () => {
    const real = new UpstreamOrigin('https://www.google.com', GOOGLE_HOST);
    expect(real.simulated).toBe(false);
    expect(real.rebase('https://www.google.de/maps/place/X')).toBe('https://www.google.de/maps/place/X');
    expect(real.resolve('/search?q=a')).toBe('https://www.google.com/search?q=a');
  });
});
