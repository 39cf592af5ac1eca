import { DEFAULT_SETTLE, settlePage } from '@trawl/browser-pool';
import { TrawlError } from '@trawl/contracts';
import type { Frame, Page, Response } from 'playwright-core';
import { navigationError, snapshot } from './browser-scrape.engine.js';

/** How a render waits for a page to be done, ms. */
export interface RenderWaits {
  /** The settle rule's quiet window (no request in flight, no DOM change), ms: the pool's DEFAULT_SETTLE. */
  quietMs: number;
  /** At most this long after the first `load`, walls' navigations included (still within the deadline). */
  capMs: number;
}

export const DEFAULT_RENDER_WAITS: RenderWaits = { quietMs: DEFAULT_SETTLE.quietMs, capMs: 8000 };

/** What a render read off the page. */
export interface PageRender {
  url: string;
  status: number;
  headers: Record<string, string>;
  html: string;
}

/**
 * Loads `url` in `page` as the upstream pages of 2025-2026 need: their first answer is often a wall whose script
 * proves the browser (a JavaScript proof cookie, a WAF token) and reloads or redirects, and the page that follows
 * writes its content by script after `load`. So after `goto`: follow the page's own navigations (each to its `load`)
 * and settle each document by the pool's rule (`settlePage`: network idle, then no DOM change for `quietMs`) until
 * one settles without navigating away, at most `capMs`, all within the deadline; then `waitForMs` more, when asked. Status and headers are those of the last main-frame document
 * response.
 */
export async function renderPage(
  page: Page,
  url: string,
  remainingMs: () => number,
  options: { waits?: RenderWaits; waitForMs?: number; maxChars?: number } = {},
): Promise<PageRender> {
  const waits = options.waits ?? DEFAULT_RENDER_WAITS;
  let last: Response | null = null;
  const onResponse = (r: Response) => {
    if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) last = r;
  };
  let navigations = 0;
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) navigations++;
  };
  page.on('response', onResponse);
  page.on('framenavigated', onNavigated);
  try {
    try {
      const response = await page.goto(url, { waitUntil: 'load', timeout: remainingMs() });
      last ??= response;
    } catch (e) {
      // A script that navigates before `load` (a proof wall's reload) interrupts goto's own navigation: follow it.
      const interrupted = /interrupted by another navigation|net::ERR_ABORTED/i.test(String(e));
      if (!interrupted || page.url() === 'about:blank') throw navigationError(e, url);
    }
    const capAt = Date.now() + Math.min(waits.capMs, remainingMs());
    for (;;) {
      const left = () => Math.max(1, Math.min(capAt - Date.now(), remainingMs()));
      await page.waitForLoadState('load', { timeout: left() }).catch(() => undefined);
      const seen = navigations;
      // The pool's settle rule (network idle, then DOM quiet); a navigation meanwhile starts another round.
      await settlePage(page, { quietMs: waits.quietMs, maxMs: left(), deadline: capAt });
      if (navigations === seen || Date.now() >= capAt) break;
    }
    if (options.waitForMs) await page.waitForTimeout(Math.min(options.waitForMs, remainingMs()));
    const maxChars = options.maxChars ?? Number.MAX_SAFE_INTEGER;
    const { html, length } = await readSnapshot(page, remainingMs, maxChars);
    if (length > maxChars) {
      throw new TrawlError(
        'CONTENT_TOO_LARGE',
        `the page rendered from ${new URL(url).host} is ${length} characters of HTML, more than ${maxChars}`,
      );
    }
    const final = last as Response | null;
    return {
      url: page.url(),
      status: final?.status() ?? 200,
      headers: final ? await final.allHeaders().catch(() => final.headers()) : {},
      html,
    };
  } finally {
    page.off('response', onResponse);
    page.off('framenavigated', onNavigated);
  }
}

/** The snapshot, taken again after a navigation that destroyed the page's context mid-read. */
async function readSnapshot(
  page: Page,
  remainingMs: () => number,
  maxChars: number,
): Promise<{ html: string; title: string; length: number }> {
  for (let i = 0; ; i++) {
    try {
      return await page.evaluate(snapshot, maxChars);
    } catch (e) {
      if (i >= 2 || !/context was destroyed|navigat/i.test(String(e))) throw e;
      await page.waitForLoadState('load', { timeout: remainingMs() }).catch(() => undefined);
    }
  }
}
