import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  classifyMapsWall,
  classifyRetailWall,
  classifySearchWall,
  parseMapsSearch,
  parsePlacePage,
  parseProductPage,
  parseSearchPage,
} from '@trawl/parsers';
import { AUTOMATION_CHECK_JS, headersShowAutomation, JsProof, PROOF_WORK_JS, proofWork } from './js-proof.gate.js';
import { safeContinue } from './mode-2026.gate.js';
import { mapsSearchRequestFromUrl, simulatedPlaceIds } from './pages/maps.page.js';
import { renderSearchPage } from './pages/search.page.js';
import { routesFor, SIMULATOR_ROUTES } from './simulator-routes.constants.js';
import { startSimulator, type RunningSimulator } from './simulator.server.js';
import { readSimulatorOptions } from './simulator.options.js';

const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';
const HEADLESS_UA = CHROME_UA.replace('Chrome/', 'HeadlessChrome/');

/** What a page's proof script would store: `<sei>~<work>`. */
function proofCookie(wall: string, name = 'SG_SS'): string {
  const sei = /var sei="([^"]+)"/.exec(wall)?.[1] ?? /"key":"([^"]+)"/.exec(wall)?.[1];
  if (!sei) throw new Error('no nonce in the page');
  return `${name}=${sei}~${proofWork(sei)}`;
}

/** The body a deferred shell writes into the document after load (what a browser ends up with). */
function renderedBody(shell: string): string {
  const data = /var d="([A-Za-z0-9+/=]+)"/.exec(shell)?.[1];
  if (!data) throw new Error('not a deferred shell');
  const head = shell.slice(0, shell.indexOf('<body'));
  return `${head}<body>${Buffer.from(data, 'base64').toString('utf8')}</body></html>`;
}

describe('upstream simulator, 2026 mode', () => {
  let sim: RunningSimulator;
  let classic: RunningSimulator;

  beforeAll(async () => {
    const options = { ...readSimulatorOptions({ SIMULATOR_MODE: '2026' }), port: 0 };
    sim = await startSimulator(options, routesFor(options.mode));
    classic = await startSimulator({ ...readSimulatorOptions({}), port: 0 }, SIMULATOR_ROUTES);
  });

  afterAll(async () => {
    await sim?.close();
    await classic?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}, base = sim.url) =>
    fetch(`${base}${path}`, { headers: { 'user-agent': CHROME_UA, ...headers }, redirect: 'manual' });

  /** A plain client that runs no script but sends the proof the wall's script would compute. */
  async function proved(path: string, extra: Record<string, string> = {}): Promise<Response> {
    const wall = await (await get(path, extra)).text();
    const cookie = [extra.cookie, proofCookie(wall)].filter(Boolean).join('; ');
    return get(path, { ...extra, cookie });
  }

  it('takes its mode from SIMULATOR_MODE or --mode (classic by default) and refuses an unknown one', () => {
    expect(readSimulatorOptions({}).mode).toBe('classic');
    expect(readSimulatorOptions({ SIMULATOR_MODE: '2026' }).mode).toBe('2026');
    expect(readSimulatorOptions({}, ['--mode', '2026']).mode).toBe('2026');
    expect(readSimulatorOptions({ SIMULATOR_MODE: '2026' }, ['--mode=classic']).mode).toBe('classic');
    expect(() => readSimulatorOptions({ SIMULATOR_MODE: '2025' })).toThrow(
      /SIMULATOR_MODE must be one of classic, 2026/,
    );
    expect(routesFor('classic')).toBe(SIMULATOR_ROUTES);
  });

  it('runs the same proof in the page as on the server, and refuses a forged one', () => {
    for (const s of ['abc', 'Zm9vYmFy.x_-', '']) {
      expect(runInNewContext(`${PROOF_WORK_JS}; __simWork(s)`, { s })).toBe(proofWork(s));
    }
    const proof = new JsProof();
    const sei = proof.issue();
    expect(proof.verify(`${sei}~${proofWork(sei)}`)).toBe(true);
    expect(proof.verify(`${sei}~00000000`)).toBe(false);
    const [nonce] = sei.split('.');
    expect(proof.verify(`${nonce}.forged~${proofWork(`${nonce}.forged`)}`)).toBe(false);
    expect(new JsProof().verify(`${sei}~${proofWork(sei)}`)).toBe(false);
    expect(proof.verify(undefined)).toBe(false);
  });

  it("sees automation markers in the page's navigator and in request headers", () => {
    const automated = (navigator: object): boolean =>
      runInNewContext(`${AUTOMATION_CHECK_JS}; __simAutomated()`, { navigator }) as boolean;
    const brands = [
      { brand: 'Chromium', version: '142' },
      { brand: 'Not_A Brand', version: '24' },
    ];
    expect(automated({ webdriver: false, userAgent: CHROME_UA, userAgentData: { brands } })).toBe(false);
    expect(automated({ webdriver: true, userAgent: CHROME_UA, userAgentData: { brands } })).toBe(true);
    expect(automated({ webdriver: false, userAgent: HEADLESS_UA, userAgentData: { brands } })).toBe(true);
    const headlessBrands = [...brands, { brand: 'HeadlessChrome', version: '142' }];
    expect(automated({ webdriver: false, userAgent: CHROME_UA, userAgentData: { brands: headlessBrands } })).toBe(true);
    expect(automated({ userAgent: CHROME_UA })).toBe(false);
    expect(headersShowAutomation(HEADLESS_UA, '')).toBe(true);
    expect(headersShowAutomation(CHROME_UA, '"HeadlessChrome";v="142"')).toBe(true);
    expect(headersShowAutomation(CHROME_UA, '"Chromium";v="142", "Google Chrome";v="142"')).toBe(false);
  });

  it('answers a client that runs no JavaScript with the enable-JavaScript wall, every time', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/search?q=coffee&hl=en&gl=us');
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toMatch(
        /<noscript><style>table,div,span,p\{display:none\}<\/style><meta content="0;url=\/httpservice\/retry\/enablejs\?sei=[^"]+" http-equiv="refresh">/,
      );
      expect(html).toContain('emsg=SG_REL');
      expect(html).not.toContain('id="rso"');
      expect(html).not.toMatch(/<h3/);
      expect(() => parseSearchPage(html)).toThrow(expect.objectContaining({ code: 'UPSTREAM_BLOCKED' }));
    }
    const retry = await get('/httpservice/retry/enablejs?sei=x');
    expect(retry.status).toBe(200);
    expect(await retry.text()).toContain('/httpservice/retry/enablejs?sei=');
  });

  it('gives a client with the proof a shell whose script writes the classic results page after load', async () => {
    const res = await proved('/search?q=coffee&hl=en&gl=us');
    expect(res.status).toBe(200);
    const shell = await res.text();
    expect(shell).not.toContain('id="rso"');
    expect(shell).toContain("addEventListener('load'");
    const body = renderedBody(shell);
    const classicPage = renderSearchPage({ q: 'coffee', hl: 'en', gl: 'us' });
    expect(body).toContain(
      classicPage.slice(classicPage.indexOf('<div class="sfbg">'), classicPage.indexOf('</body>')),
    );
    expect(parseSearchPage(body).results.length).toBe(10);
  });

  it('sends a client whose user agent says HeadlessChrome to the unusual-traffic page (429)', async () => {
    const res = await get('/search?q=coffee', { 'user-agent': HEADLESS_UA });
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    expect(location).toBe(`/sorry/index?continue=${encodeURIComponent('/search?q=coffee')}`);
    const sorry = await get(location);
    expect(sorry.status).toBe(429);
    const html = await sorry.text();
    expect(html).toContain('id="captcha-form"');
    expect(html).toContain('Our systems have detected unusual traffic from your computer network');
    expect(html).toContain('<input type="hidden" name="continue" value="/search?q=coffee">');
    expect(html).not.toMatch(/src="https?:/);
    const hints = await get('/search?q=coffee', { 'sec-ch-ua': '"HeadlessChrome";v="142", "Chromium";v="142"' });
    expect(hints.status).toBe(302);
  });

  it('shows the consent interstitial for an EU gl until the client rejects (or accepts) or sends a consent cookie', async () => {
    const res = await get('/search?q=kaffee&hl=de&gl=de');
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/consent\/ml\?continue=%2Fsearch%3Fq%3Dkaffee%26hl%3Dde%26gl%3Dde&gl=DE/);
    const page = await (await get(location)).text();
    expect(page).toContain('<title>Bevor Sie zu Google weitergehen</title>');
    expect(page).toMatch(/<form action="\/consent\/save" method="POST">.*name="set_eom" value="true".*Alle ablehnen/);
    expect(page).toMatch(/name="set_eom" value="false".*Alle akzeptieren/);

    const save = await fetch(`${sim.url}/consent/save`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ continue: '/search?q=kaffee&hl=de&gl=de', set_eom: 'true' }),
    });
    expect(save.status).toBe(303);
    expect(save.headers.get('location')).toBe('/search?q=kaffee&hl=de&gl=de');
    const socs = /^(SOCS=[^;]+)/.exec(save.headers.get('set-cookie') ?? '')?.[1];
    expect(socs).toMatch(/^SOCS=CAE/);

    // With consent, the next gate is the JavaScript wall; with the proof too, results.
    const wall = await get('/search?q=kaffee&hl=de&gl=de', { cookie: socs ?? '' });
    expect(wall.status).toBe(200);
    expect(await wall.text()).toContain('/httpservice/retry/enablejs');
    const results = await proved('/search?q=kaffee&hl=de&gl=de', { cookie: 'CONSENT=YES+cb.20250101-00-p0.de+FX+000' });
    expect(parseSearchPage(renderedBody(await results.text())).results.length).toBeGreaterThan(0);
    // Outside the EU: no interstitial.
    expect((await get('/search?q=coffee&gl=us')).status).toBe(200);
  });

  it('accepts "Accept all" too, only by POST, and sends nobody off the simulator', async () => {
    const save = (body: Record<string, string>) =>
      fetch(`${sim.url}/consent/save`, { method: 'POST', redirect: 'manual', body: new URLSearchParams(body) });
    const accepted = await save({ continue: '/search?q=x&gl=fr', set_eom: 'false' });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('set-cookie')).toMatch(/^SOCS=CAI/);
    const offsite = await save({ continue: 'https://www.google.com/search?q=x', set_eom: 'true' });
    expect(offsite.headers.get('location')).toBe('/');
    expect((await get('/consent/save')).status).toBe(405);
    const recaptcha = await get('/recaptcha/enterprise.js');
    expect([recaptcha.status, recaptcha.headers.get('content-type')]).toEqual([200, 'text/javascript']);
  });

  it('never sends a browser off the simulator from the consent page', () => {
    expect(safeContinue('https://www.google.com/search?q=x')).toBe('/');
    expect(safeContinue('//evil.example/x')).toBe('/');
    expect(safeContinue('/search?q=x&gl=de')).toBe('/search?q=x&gl=de');
    expect(safeContinue(null)).toBe('/');
  });

  it("serves maps pages behind the same wall, with maps' own <noscript>, then written by script", async () => {
    const search = mapsSearchRequestFromUrl(new URL('http://x/search?q=coffee&pb=!2d-73.98!3d40.75!7i20!8i0'));
    const [placeId] = simulatedPlaceIds(search);
    const placePath = `/maps/place/?q=place_id:${placeId}&hl=en`;
    const wall = await (await get(placePath)).text();
    expect(wall).toContain('Enable JavaScript to see Google Maps.');
    expect(wall).not.toContain('APP_INITIALIZATION_STATE');
    expect(() => parsePlacePage(wall, { url: `${sim.url}${placePath}` })).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/UPSTREAM_BLOCKED|PAGE_NOT_RECOGNISED/) }),
    );

    const shell = await (await proved(placePath)).text();
    expect(shell).not.toContain('APP_INITIALIZATION_STATE');
    const place = parsePlacePage(renderedBody(shell), { url: `${sim.url}${placePath}` });
    expect(place.mp_place_id).toBe(placeId);
  });

  it("serves a maps search URL as the web client's results page (a feed of cards) that the parser reads", async () => {
    const path = '/maps/search/coffee/@40.75,-73.98,14z?hl=en';
    const shell = await (await proved(path)).text();
    expect(shell).not.toContain('role="article"');
    const page = renderedBody(shell);
    expect(page).toContain('role="feed"');
    const data = parseMapsSearch(page, {
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
    expect(data.organicResults[0]).toMatchObject({ name: expect.any(String), rating: expect.any(Number) });
    // The feed says where its next cards are; they come to a proved client only, 20 at a time, to the end of the list.
    const more = /data-sim-more="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
    expect(more).toBe('/maps/search/coffee/@40.75,-73.98,14z?hl=en&start=20&cards=1');
    expect(await (await get(more ?? '')).text()).toContain('Enable JavaScript to see Google Maps');
    const cards = await (await proved(more ?? '')).text();
    expect(cards).toMatch(/^<div data-sim-next="[^"]*start=40&amp;cards=1">/);
    const next = parseMapsSearch(
      `<html><head><title>coffee - Google Maps</title></head><body><div role="feed">${cards}</div></body></html>`,
      {
        q: 'coffee',
        hl: 'en',
        requestUrl: `${sim.url}${path}`,
      },
    );
    const req = { q: 'coffee', hl: 'en', gl: 'us', latitude: 40.75, longitude: -73.98, num: 20 };
    expect(next.organicResults.map((r) => r.place_id)).toEqual(simulatedPlaceIds({ ...req, start: 20 }));
    const last = await (await proved(more?.replace('start=20', 'start=220') ?? '')).text();
    expect(last).toMatch(/^<div data-sim-next="">/);
    expect(last).toContain("You've reached the end of the list.");
    // The classic mode still answers the same URL with JSON.
    const json = await (await get(path, {}, classic.url)).text();
    expect(json.startsWith(")]}'")).toBe(true);
  });

  it('answers the maps JSON endpoint only to a client with the proof', async () => {
    const path = '/search?tbm=map&hl=en&q=coffee&pb=!1d1000!2d-74.0!3d40.7!7i20!8i0';
    const wall = await get(path);
    expect(wall.headers.get('content-type')).toContain('text/html');
    expect(await wall.text()).toContain('/httpservice/retry/enablejs');
    const res = await proved(path);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.text()).toMatch(/^\)\]\}'\n\[\["coffee"/);
  });

  it("answers a product page with Amazon's JavaScript challenge (202) until the client holds an aws-waf-token", async () => {
    const res = await get('/dp/B0TESTASIN');
    expect(res.status).toBe(202);
    const challenge = await res.text();
    expect(challenge).toMatch(/window\.gokuProps = \{"key":"[^"]+","iv":"[^"]+","context":"[^"]+"\}/);
    expect(challenge).toContain('AwsWafIntegration.getToken()');
    expect(challenge).toContain('<script src="/awswaf/challenge.js"></script>');
    expect(challenge).not.toContain('productTitle');
    expect(() => parseProductPage(challenge, { url: `${sim.url}/dp/B0TESTASIN` })).toThrow(
      expect.objectContaining({ code: 'UPSTREAM_BLOCKED' }),
    );
    const script = await get('/awswaf/challenge.js');
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(await script.text()).toContain('aws-waf-token=');

    const page = await get('/dp/B0TESTASIN', { cookie: proofCookie(challenge, 'aws-waf-token') });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('productTitle');
    // Nothing for a browser to load off loopback, and the parser reads the same record as from the classic page.
    expect(html).not.toMatch(/<img\b[^>]*\ssrc="https?:/);
    const url = `${sim.url}/dp/B0TESTASIN`;
    const classicHtml = await (await get('/dp/B0TESTASIN', {}, classic.url)).text();
    expect(classicHtml).toMatch(/<img\b[^>]*\ssrc="https?:/);
    expect(parseProductPage(html, { url })).toEqual(parseProductPage(classicHtml, { url }));

    const headless = await get('/dp/B0TESTASIN', { 'user-agent': HEADLESS_UA });
    expect(headless.status).toBe(503);
    expect(await headless.text()).toContain('validateCaptcha');
    expect((await get('/errors/validateCaptcha?amzn-r=%2Fdp%2FB0TESTASIN')).status).toBe(200);
  });

  it("answers with walls the parsers' classifiers name, and pages they read once rendered", async () => {
    const text = async (path: string, headers: Record<string, string> = {}) => (await get(path, headers)).text();
    const place = `/maps/place/?q=place_id:${simulatedPlaceIds({ q: 'tea', hl: 'en', gl: 'us', latitude: 40.7, longitude: -74, num: 1, start: 0 })[0]}`;
    const mapsSearch = '/maps/search/tea/@40.7,-74,13z';
    expect(classifySearchWall(await text('/search?q=tea'))).toBe('enable-javascript');
    expect(classifySearchWall(await text('/httpservice/retry/enablejs?sei=x'))).toBe('enable-javascript');
    expect(classifySearchWall(await text('/sorry/index?continue=%2Fsearch%3Fq%3Dtea'))).toBe('unusual-traffic');
    expect(classifySearchWall(await text('/consent/ml?continue=%2Fsearch%3Fq%3Dtea&hl=fr&gl=FR'))).toBe('consent');
    expect(classifyMapsWall(await text(place))).toBe('enable-javascript');
    expect(classifyMapsWall(await text(mapsSearch))).toBe('enable-javascript');
    expect(classifyMapsWall(await text('/search?tbm=map&q=tea&pb=!7i20'))).toBe('enable-javascript');
    expect(classifyMapsWall(await text('/sorry/index?continue=%2Fmaps%2Fsearch%2Ftea'))).toBe('unusual-traffic');
    expect(classifyMapsWall(await text('/consent/ml?continue=%2Fmaps%2Fsearch%2Ftea&gl=DE'))).toBe('consent');
    expect(classifyRetailWall(await text('/dp/B0TESTASIN'))).toBe('javascript-challenge');
    expect(classifyRetailWall(await text('/dp/B0TESTASIN', { 'user-agent': HEADLESS_UA }))).toBe('unusual-traffic');
    // A client that forges the proof but runs no script gets a shell: still a page asking for JavaScript.
    for (const [path, classify] of [
      ['/search?q=tea', classifySearchWall],
      [place, classifyMapsWall],
      [mapsSearch, classifyMapsWall],
    ] as const) {
      const shell = await (await proved(path)).text();
      expect([path, classify(shell)]).toEqual([path, 'enable-javascript']);
      expect([path, classify(renderedBody(shell))]).toEqual([path, undefined]);
    }
  });

  it('keeps the trouble headers of the classic mode', async () => {
    const blocked = await get('/search?q=coffee', { 'x-simulate': 'block' });
    expect(blocked.status).toBe(302);
    expect((await get('/dp/B0X', { 'x-simulate': 'status-500' })).status).toBe(500);
  });
});
