import { beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/contracts';
import { AdBlocker } from './ad-blocker.service.js';
import { newTaskState, type Slot } from './browser-pool-state.types.js';
import { PageRequestGuard, type FetchPaused } from './page-request.guard.js';

// The decisions of PageRequestGuard that need no browser: which requests paused in the browser are refused, and
// which CDP Fetch patterns a slot intercepts with and without `blockAds`. The route handler and the listeners are
// covered against real Chromium by browser.pool.spec.ts, browser-pool-ads.spec.ts and browser-pool-proxy.spec.ts.

const PAGE = 'https://news.example.org/story.html';
const AD = 'https://securepubads.g.doubleclick.net/tag/js/gpt.js';
const allowAll = async () => undefined;

/** A slot as the guard sees it: its task's state, its tab's target id and URL, and a CDP session that records. */
function fakeSlot(): Slot & { sent: [string, unknown][] } {
  const sent: [string, unknown][] = [];
  const cdp = { send: async (method: string, params?: unknown) => void sent.push([method, params]) };
  return {
    task: newTaskState(),
    targetId: 'TAB',
    page: { url: () => 'about:blank' },
    cdp,
    interceptsAll: false,
    sent,
  } as unknown as Slot & { sent: [string, unknown][] };
}

const paused = (url: string, resourceType: string, frameId = 'FRAME'): FetchPaused => ({
  requestId: '1',
  request: { url },
  frameId,
  resourceType,
});

describe('PageRequestGuard', () => {
  const adBlocker = new AdBlocker();
  beforeAll(() => adBlocker.ready());

  const guardOf = (blockResources: readonly string[]) =>
    new PageRequestGuard({ guard: allowAll, proxyServer: 'http://127.0.0.1:9', adBlocker, blockResources });

  it('intercepts the blocked types by their CDP names, and the tab icon only when images are blocked', () => {
    expect(guardOf(['image', 'font']).blockedPatterns()).toEqual([
      { urlPattern: '*', resourceType: 'Image', requestStage: 'Request' },
      { urlPattern: '*', resourceType: 'Font', requestStage: 'Request' },
      { urlPattern: '*/favicon.ico', resourceType: 'Other', requestStage: 'Request' },
    ]);
    expect(guardOf(['media']).blockedPatterns()).toEqual([
      { urlPattern: '*', resourceType: 'Media', requestStage: 'Request' },
    ]);
    expect(guardOf([]).blockedPatterns()).toEqual([]);
  });

  it('refuses a paused request of a blocked type or the tab icon, and continues the rest without blockAds', () => {
    const guard = guardOf(['image']);
    const slot = fakeSlot();
    expect(guard.refusesPaused(slot, paused('https://news.example.org/a.png', 'Image'))).toBe(true);
    expect(guard.refusesPaused(slot, paused('https://news.example.org/favicon.ico', 'Other'))).toBe(true);
    expect(guard.refusesPaused(slot, paused('https://news.example.org/other.ico', 'Other'))).toBe(false);
    expect(guard.refusesPaused(slot, paused(AD, 'Script'))).toBe(false); // no blockAds: an ad loads
    expect(guardOf([]).refusesPaused(slot, paused('https://news.example.org/favicon.ico', 'Other'))).toBe(false);
    expect(slot.task.adsBlocked).toBe(0);
  });

  it('with blockAds refuses ads for the page the tab navigated to, counts them and never refuses the tab itself', () => {
    const guard = guardOf(['image']);
    const slot = fakeSlot();
    slot.task.blockAds = true;
    expect(guard.refusesPaused(slot, paused(PAGE, 'Document', 'TAB'))).toBe(false);
    expect(slot.task.topUrl).toBe(PAGE);
    expect(guard.refusesPaused(slot, paused(AD, 'Script'))).toBe(true);
    expect(guard.refusesPaused(slot, paused('https://news.example.org/app.js', 'Script'))).toBe(false);
    // A frame's document is not the tab's navigation: the page it is for stays the tab's.
    expect(guard.refusesPaused(slot, paused('https://news.example.org/frame.html', 'Document', 'FRAME'))).toBe(false);
    expect(slot.task.topUrl).toBe(PAGE);
    expect(slot.task.adsBlocked).toBe(1);
  });

  it('widens the interception for a task with blockAds and narrows it back only when the flag changes', async () => {
    const guard = guardOf(['image']);
    const slot = fakeSlot();
    await guard.blockAdsFor(slot, true);
    await guard.blockAdsFor(slot, true);
    await guard.blockAdsFor(slot, false);
    await guard.blockAdsFor(slot, false);
    expect(slot.sent).toEqual([
      ['Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] }],
      ['Fetch.enable', { patterns: guard.blockedPatterns() }],
    ]);
    expect(slot.task.blockAds).toBe(false);
    expect(slot.interceptsAll).toBe(false);
  });

  it('turns the interception off when narrowed with nothing to block', async () => {
    const guard = guardOf([]);
    const slot = fakeSlot();
    await guard.blockAdsFor(slot, true);
    await guard.blockAdsFor(slot, false);
    expect(slot.sent.map(([method]) => method)).toEqual(['Fetch.enable', 'Fetch.disable']);
  });

  it('without an ad blocker blockAds blocks nothing and intercepts nothing more', async () => {
    const guard = new PageRequestGuard({ guard: allowAll, proxyServer: 'http://127.0.0.1:9', blockResources: [] });
    const slot = fakeSlot();
    await guard.blockAdsFor(slot, true);
    expect(slot.task.blockAds).toBe(false);
    expect(slot.sent).toEqual([]);
  });

  it('fails the task with SERVICE_UNAVAILABLE when the ad filters cannot be loaded', async () => {
    const broken = new AdBlocker({ list: () => Promise.reject(new Error('no list')) });
    const guard = new PageRequestGuard({ guard: allowAll, adBlocker: broken, blockResources: [] });
    const outcome = guard.blockAdsFor(fakeSlot(), true);
    await expect(outcome).rejects.toBeInstanceOf(TrawlError);
    await expect(outcome).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
