import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SIMULATOR_ROUTES } from './simulator-routes.constants.js';
import { startSimulator, type RunningSimulator } from './simulator.server.js';
import { readSimulatorOptions } from './simulator.options.js';

describe('upstream simulator server', () => {
  let sim: RunningSimulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-sim-'));
    mkdirSync(join(dir, 'saved'));
    writeFileSync(join(dir, 'saved', 'page.html'), '<html>saved page</html>');
    writeFileSync(join(tmpdir(), 'trawl-sim-secret.html'), 'secret');
    sim = await startSimulator({ ...readSimulatorOptions({}), port: 0, pagesDir: dir }, SIMULATOR_ROUTES);
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(tmpdir(), 'trawl-sim-secret.html'), { force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${sim.url}${path}`, { headers, redirect: 'manual' });

  it('reads its options from SIMULATOR_* variables, port 8090 on 127.0.0.1 by default', () => {
    expect(readSimulatorOptions({})).toMatchObject({ port: 8090, host: '127.0.0.1', latencyMs: 0, blockEvery: 0 });
    expect(readSimulatorOptions({ SIMULATOR_PORT: '9000', SIMULATOR_LATENCY_MS: '25' })).toMatchObject({
      port: 9000,
      latencyMs: 25,
    });
    expect(() => readSimulatorOptions({ SIMULATOR_PORT: 'x' })).toThrow(/SIMULATOR_PORT/);
  });

  it('answers a maps search for any query with the maps JSON', async () => {
    const res = await get('/search?tbm=map&hl=en&q=coffee&pb=!1d1000!2d-74.0!3d40.7!7i20!8i0');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.text()).toMatch(/^\)\]\}'\n\[\["coffee"/);
  });

  it('answers a web search for any query with a results page', async () => {
    const res = await get('/search?q=best+hiking+boots&hl=en&num=10');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('id="rso"');
  });

  it('answers a product path with a product page, and blocks a captcha ASIN the way Amazon does (503)', async () => {
    const res = await get('/Some-Thing/dp/B0TESTASIN');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('productTitle');
    const blocked = await get('/dp/CAPTCHA123');
    expect(blocked.status).toBe(503);
    expect(await blocked.text()).toContain('validateCaptcha');
  });

  it('answers a place URL with a place page', async () => {
    const res = await get('/maps/place/?q=place_id:ChIJabc');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('APP_INITIALIZATION_STATE');
  });

  it('blocks a Google query containing "captcha" the way Google does: a redirect to /sorry/, which answers 429', async () => {
    const res = await get('/search?tbm=map&q=captcha+please&pb=');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/sorry\/index\?continue=/);
    const sorry = await get(res.headers.get('location') ?? '');
    expect(sorry.status).toBe(429);
    expect(await sorry.text()).toContain('unusual traffic');
  });

  it('blocks on request (header x-simulate: block), and serves a captcha with 200 on x-simulate: captcha-200', async () => {
    expect((await get('/maps/place/?q=place_id:x', { 'x-simulate': 'block' })).status).toBe(302);
    const res = await get('/maps/place/?q=place_id:x', { 'x-simulate': 'captcha-200' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('captcha-form');
  });

  it('answers with the status asked for (x-simulate: status-500) and 404 for unknown paths', async () => {
    expect((await get('/maps/place/?q=place_id:x', { 'x-simulate': 'status-500' })).status).toBe(500);
    expect((await get('/nothing/here')).status).toBe(404);
  });

  it('serves saved pages by path (with or without .html), and nothing outside the folder', async () => {
    const res = await get('/saved/page?ignored=1');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<html>saved page</html>');
    expect((await get('/saved/page.html')).status).toBe(200);
    expect((await get('/..%2Ftrawl-sim-secret.html')).status).toBe(404);
  });

  it('blocks every Nth page request when told to', async () => {
    const every = await startSimulator({ ...readSimulatorOptions({}), port: 0, blockEvery: 2 }, SIMULATOR_ROUTES);
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await fetch(`${every.url}/maps/place/?q=place_id:${i}`, { redirect: 'manual' })).status);
      expect(statuses).toEqual([200, 302, 200, 302]);
    } finally {
      await every.close();
    }
  });
});
