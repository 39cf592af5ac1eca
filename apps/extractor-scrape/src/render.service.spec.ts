import { describe, expect, it } from '@jest/globals';
import type { BrowserPool, RunOptions } from '@trawl/browser-pool';
import type { RenderPageRequestDto } from '@trawl/contracts';
import { parseAllowList } from '@trawl/safe-fetch';
import { RenderService } from './render.service.js';
import type { ScrapeSettings } from './scrape.settings.js';

// ADR 0027: an upstream render's session draws its proxy for, and rests it for, the render's host only. The pool's
// side (next/markBlocked with that scope, through real proxies) is browser-pool-proxy.spec.ts; this is what the
// render service hands the pool.
describe('RenderService', () => {
  it("opens the render's session scoped to the render URL's host and retires the blocked one", async () => {
    const runs: RunOptions[] = [];
    const retired: [string, { blocked?: boolean } | undefined][] = [];
    const pool = {
      retireSession: (session: string, options?: { blocked?: boolean }) => void retired.push([session, options]),
      run: async (_task: unknown, options: RunOptions) => {
        runs.push(options);
        return { url: 'http://127.0.0.1:9/maps', status: 200, headers: {}, html: '<p>x</p>' };
      },
    } as unknown as BrowserPool;
    const settings = { allow: parseAllowList('127.0.0.1'), maxBodyBytes: 1_000_000 } as ScrapeSettings;
    const service = new RenderService(settings, pool);

    await service.render({
      url: 'http://127.0.0.1:9/maps/search/x',
      timeout: 5_000,
      what: 'maps search',
      session: 'upstream:127.0.0.1_9:en:us:1',
      retireSession: 'upstream:127.0.0.1_9:en:us:0',
    } as RenderPageRequestDto);

    expect(retired).toEqual([['upstream:127.0.0.1_9:en:us:0', { blocked: true }]]);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ session: 'upstream:127.0.0.1_9:en:us:1', proxyScope: '127.0.0.1:9' });
  });
});
