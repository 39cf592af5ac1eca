// Drives the system Chromium (playwright-core) against the 2026 mode: a browser that hides its automation markers
// passes every wall and the parsers read what it renders; a default headless launch gets the unusual-traffic page.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseMapsSearch, parsePlacePage, parseProductPage, parseSearchPage } from '@trawl/parsers';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { mapsSearchRequestFromUrl, simulatedPlaceIds } from './pages/maps.page.js';
import { routesFor } from './simulator-routes.constants.js';
import { startSimulator, type RunningSimulator } from './simulator.server.js';
import { readSimulatorOptions } from './simulator.options.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the Chromium tests of the 2026 mode: ${CHROMIUM} is missing`);
const describeIfChromium = haveChromium ? describe : describe.skip;

/** Aborts (and counts) every request that is not to loopback: a page of the simulator must never leave it. */
async function loopbackOnly(context: BrowserContext, offLoopback: string[]): Promise<void> {
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return route.continue();
    offLoopback.push(url.href);
    return route.abort();
  });
}

describeIfChromium('upstream simulator, 2026 mode, in Chromium', () => {
  let sim: RunningSimulator;
  let stealthy: Browser;
  let headless: Browser;
  let context: BrowserContext;
  const offLoopback: string[] = [];

  beforeAll(async () => {
    const options = { ...readSimulatorOptions({ SIMULATOR_MODE: '2026' }), port: 0 };
    sim = await startSimulator(options, routesFor(options.mode));
    stealthy = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--disable-blink-features=AutomationControlled', '--no-sandbox'],
    });
    headless = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    context = await stealthy.newContext({ userAgent: userAgent(), locale: 'en-US' });
    await loopbackOnly(context, offLoopback);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await stealthy?.close();
    await headless?.close();
    await sim?.close();
  });

  /** A normal Chrome user agent for the version that runs (no version written down here). */
  function userAgent(): string {
    const major = stealthy.version().split('.')[0];
    return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
  }

  async function open(
    path: string,
    ready: string,
    ctx: BrowserContext = context,
  ): Promise<{ page: Page; html: string }> {
    const page = await ctx.newPage();
    await page.goto(`${sim.url}${path}`);
    await page.waitForSelector(ready, { timeout: 20_000 });
    return { page, html: await page.content() };
  }

  it('a browser without automation markers passes the JavaScript wall and the parser reads the results it renders', async () => {
    const { page, html } = await open('/search?q=coffee+beans&hl=en&gl=us', '#rso');
    const parsed = parseSearchPage(html);
    expect(parsed.results).toHaveLength(10);
    expect(parsed.peopleAlsoAsk.length).toBeGreaterThan(0);
    expect(parsed.relatedSearches.length).toBeGreaterThan(0);
    expect(new URL(page.url()).pathname).toBe('/search');
    await page.close();
  }, 60_000);

  it('a browser that clicks "Reject all" on the consent interstitial gets results', async () => {
    const fresh = await stealthy.newContext({ userAgent: userAgent() });
    await loopbackOnly(fresh, offLoopback);
    const page = await fresh.newPage();
    await page.goto(`${sim.url}/search?q=kaffee&hl=de&gl=de`);
    expect(new URL(page.url()).pathname).toBe('/consent/ml');
    await page.click('form:has(input[name="set_eom"][value="true"]) button');
    await page.waitForSelector('#rso', { timeout: 20_000 });
    expect(parseSearchPage(await page.content()).results.length).toBeGreaterThan(0);
    await fresh.close();
  }, 60_000);

  it('renders a maps search URL into the feed of cards the maps search parser reads', async () => {
    const path = '/maps/search/coffee/@40.75,-73.98,14z?hl=en';
    const { page, html } = await open(path, '[role="feed"] [role="article"]');
    const data = parseMapsSearch(html, {
      q: 'coffee',
      hl: 'en',
      ll: '@40.75,-73.98,14z',
      requestUrl: `${sim.url}${path}`,
    });
    const ids = simulatedPlaceIds({
      q: 'coffee',
      hl: 'en',
      gl: 'us',
      latitude: 40.75,
      longitude: -73.98,
      num: 20,
      start: 0,
    });
    expect(data.organicResults.map((r) => r.place_id)).toEqual(ids);
    await page.close();
  }, 60_000);

  it('loads the next cards as the feed is scrolled, as the maps web client does', async () => {
    const path = '/maps/search/pizza/@40.75,-73.98,14z?hl=en';
    const { page } = await open(path, '[role="feed"] [role="article"]');
    const count = () => page.locator('[role="feed"] [role="article"]').count();
    while ((await count()) < 60) {
      const before = await count();
      await page.locator('[role="feed"]').evaluate((feed) => feed.scrollTo(0, feed.scrollHeight));
      await page.waitForFunction((n) => document.querySelectorAll('[role="feed"] [role="article"]').length > n, before);
    }
    const data = parseMapsSearch(await page.content(), { q: 'pizza', hl: 'en', requestUrl: `${sim.url}${path}` });
    const ids = simulatedPlaceIds({
      q: 'pizza',
      hl: 'en',
      gl: 'us',
      latitude: 40.75,
      longitude: -73.98,
      num: 60,
      start: 0,
    });
    expect(data.organicResults.map((r) => r.place_id)).toEqual(ids);
    await page.close();
  }, 60_000);

  it('renders a place page the place parser reads', async () => {
    const [placeId] = simulatedPlaceIds(
      mapsSearchRequestFromUrl(new URL('http://x/search?q=coffee&pb=!2d-73.98!3d40.75')),
    );
    const path = `/maps/place/?q=place_id:${placeId}&hl=en`;
    const { page, html } = await open(path, 'h1');
    const place = parsePlacePage(html, { url: `${sim.url}${path}` });
    expect(place.mp_place_id).toBe(placeId);
    expect(place.mp_company_name).toBeTruthy();
    await page.close();
  }, 60_000);

  it("passes Amazon's JavaScript challenge and reads the product page", async () => {
    const { page, html } = await open('/dp/B0TESTASIN', '#productTitle');
    const record = parseProductPage(html, { url: `${sim.url}/dp/B0TESTASIN` });
    expect(record.asin).toBe('B0TESTASIN');
    expect(record.title).toBeTruthy();
    await page.close();
  }, 60_000);

  it('a default headless launch (HeadlessChrome in its user agent) gets the unusual-traffic page', async () => {
    const ctx = await headless.newContext();
    await loopbackOnly(ctx, offLoopback);
    const page = await ctx.newPage();
    const res = await page.goto(`${sim.url}/search?q=coffee&hl=en&gl=us`);
    expect(res?.status()).toBe(429);
    expect(new URL(page.url()).pathname).toBe('/sorry/index');
    const html = await page.content();
    expect(() => parseSearchPage(html)).toThrow(expect.objectContaining({ code: 'UPSTREAM_BLOCKED' }));
    await ctx.close();
  }, 60_000);

  it("a browser whose script sees navigator.webdriver gets the unusual-traffic page from the page's own check", async () => {
    const ua = await headless.newContext().then(async (c) => {
      const p = await c.newPage();
      const v = await p.evaluate(() => navigator.userAgent);
      await c.close();
      return v.replace('HeadlessChrome/', 'Chrome/');
    });
    const ctx = await headless.newContext({ userAgent: ua });
    await loopbackOnly(ctx, offLoopback);
    const page = await ctx.newPage();
    expect(await page.evaluate(() => navigator.webdriver)).toBe(true);
    await page.goto(`${sim.url}/search?q=coffee&hl=en&gl=us`);
    await page.waitForURL(/\/sorry\/index/, { timeout: 20_000 });
    await page.waitForSelector('#captcha-form', { state: 'attached' });
    const html = await page.content();
    expect(() => parseSearchPage(html)).toThrow(expect.objectContaining({ code: 'UPSTREAM_BLOCKED' }));
    await ctx.close();
  }, 60_000);

  it('no page of the simulator asked the browser for anything off loopback', () => {
    expect(offLoopback).toEqual([]);
  });
});
