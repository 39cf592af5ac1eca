import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkUrl, parseAllowList } from '@trawl/safe-fetch';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { chromium, type BrowserType } from 'playwright-core';
import { BrowserPool } from './browser.pool.js';
import { resolveChromiumPath } from './chromium-path.resolver.js';

// Must-show 2 (issue 12): a page rendered by the pool sees no automation markers, and the user agent its server
// receives is the one its script sees. Real Chromium, a site on 127.0.0.1 (allowlisted).
const allow = parseAllowList('127.0.0.1');

interface Seen {
  userAgent: string;
  webdriver: boolean;
  brands: { brand: string; version: string }[];
  fullVersionList: { brand: string; version: string }[];
  platform: string;
  languages: string[];
  timeZone: string;
}

async function report(): Promise<Seen> {
  const data = (navigator as unknown as { userAgentData: unknown }).userAgentData as {
    brands: { brand: string; version: string }[];
    platform: string;
    getHighEntropyValues(hints: string[]): Promise<{ fullVersionList: { brand: string; version: string }[] }>;
  };
  const high = await data.getHighEntropyValues(['fullVersionList']);
  return {
    userAgent: navigator.userAgent,
    webdriver: navigator.webdriver,
    brands: data.brands,
    fullVersionList: high.fullVersionList,
    platform: data.platform,
    languages: [...navigator.languages],
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

describe('BrowserPool identity (real Chromium)', () => {
  let site: LoopbackServer;
  let pool: BrowserPool;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>probe</title><p>probe</p>');
    });
    pool = new BrowserPool({
      executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH),
      guard: async (url) => void (await checkUrl(url, { allow })),
      maxPagesPerBrowser: 1,
    });
  });
  afterAll(async () => {
    await pool?.close();
    await site?.close();
  });

  const probe = (path: string, options: { hl?: string; gl?: string } = {}) =>
    pool.run(
      async ({ page, identity }) => {
        await page.goto(`${site.url}${path}`);
        return { seen: await page.evaluate(report), identity };
      },
      { deadline: Date.now() + 20_000, ...options },
    );

  it('shows no automation markers, and the server receives the user agent and client hints the script sees', async () => {
    const { seen, identity } = await probe('/probe-1');
    const browserVersion = pool.stats().browsers > 0 ? identity.browserVersion : '';
    expect(seen.webdriver).toBe(false);
    expect(seen.userAgent).not.toMatch(/Headless/i);
    expect(seen.brands.map((b) => b.brand).join()).not.toMatch(/Headless/i);
    expect(seen.brands.map((b) => b.brand)).toEqual(expect.arrayContaining(['Google Chrome', 'Chromium']));
    expect(seen.fullVersionList).toContainEqual({ brand: 'Google Chrome', version: browserVersion });
    expect(seen.platform).toBe('Linux');

    const request = site.requests.find((r) => r.url === '/probe-1');
    expect(request?.headers['user-agent']).toBe(seen.userAgent);
    expect(request?.headers['sec-ch-ua']).toBe(identity.clientHints['sec-ch-ua']);
    expect(request?.headers['sec-ch-ua']).not.toMatch(/Headless/i);
    // The version claimed is the real browser's (no version written in the code).
    expect(seen.userAgent).toContain(`Chrome/${browserVersion.split('.')[0]}.0.0.0`);
  });

  it('keeps the identity on a reused context, and follows hl/gl with locale, Accept-Language and time zone', async () => {
    await probe('/probe-2');
    const again = await probe('/probe-3');
    expect(pool.stats().contextsReused).toBeGreaterThanOrEqual(1);
    expect(again.seen.webdriver).toBe(false);
    expect(site.requests.find((r) => r.url === '/probe-3')?.headers['user-agent']).toBe(again.seen.userAgent);

    const german = await probe('/probe-de', { hl: 'de', gl: 'DE' });
    expect(german.seen.languages).toEqual(['de-DE', 'de', 'en']);
    expect(german.seen.timeZone).toBe('Europe/Berlin');
    expect(site.requests.find((r) => r.url === '/probe-de')?.headers['accept-language']).toBe(
      'de-DE,de;q=0.9,en;q=0.8',
    );
  });
});

// A cross-site iframe (another site's embed) renders in its page's process (`--disable-site-isolation-trials`), so the
// page's identity covers it: in a process of its own it showed Chromium's own brands, without "Google Chrome".
describe('BrowserPool identity in a cross-site iframe (real Chromium)', () => {
  const EMBED_HOST = 'widget.localhost'; // a secure context, as 127.0.0.1 is: userAgentData is there
  let site: LoopbackServer;
  let pool: BrowserPool;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      const body = req.url?.startsWith('/embed')
        ? '<title>embed</title><p>embed</p>'
        : `<title>page</title><iframe src="http://${EMBED_HOST}:${site.port}/embed${req.url ?? ''}"></iframe>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    });
    // Chromium resolves the embed's name itself here: its host rules send it to the loopback site.
    const rules = `--host-resolver-rules=MAP ${EMBED_HOST} 127.0.0.1`;
    const launcher = Object.create(chromium, {
      launch: {
        value: (options: Parameters<BrowserType['launch']>[0]) =>
          chromium.launch({ ...options, args: [...(options?.args ?? []), rules] }),
      },
    }) as BrowserType;
    pool = new BrowserPool({
      executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH),
      guard: async () => undefined,
      launcher,
      maxPagesPerBrowser: 1,
    });
  });
  afterAll(async () => {
    await pool?.close();
    await site?.close();
  });

  it.each([
    ['a desktop', false],
    ['a phone', true],
  ])('the frame says what its page says, as %s', async (_name, mobile) => {
    const { top, frame, identity } = await pool.run(
      async ({ page, identity }) => {
        await page.goto(`${site.url}/page-${String(mobile)}`, { waitUntil: 'load' });
        const embed = page.frames().find((f) => f.url().startsWith(`http://${EMBED_HOST}`));
        if (!embed) throw new Error('the embed did not load');
        return { top: await page.evaluate(report), frame: await embed.evaluate(report), identity };
      },
      { deadline: Date.now() + 20_000, mobile },
    );
    expect(frame.brands.map((b) => b.brand)).toContain('Google Chrome');
    expect(frame).toEqual({ ...top });
    const request = site.requests.find((r) => r.url === `/embed/page-${String(mobile)}`);
    expect(request?.headers.host).toBe(`${EMBED_HOST}:${site.port}`);
    expect(request?.headers['user-agent']).toBe(top.userAgent);
    expect(request?.headers['sec-ch-ua']).toBe(identity.clientHints['sec-ch-ua']);
    expect(request?.headers['sec-ch-ua-mobile']).toBe(mobile ? '?1' : '?0');
  });
});
