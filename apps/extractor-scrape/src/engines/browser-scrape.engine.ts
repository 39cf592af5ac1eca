import { Inject, Injectable } from '@nestjs/common';
import { TrawlError } from '@trawl/contracts';
import { BrowserPool, settlePage } from '@trawl/browser-pool';
import { mediaTypeOf } from '@trawl/safe-fetch';
import { errors, type Response } from 'playwright-core';
import { SCRAPE_SETTINGS, type ScrapeSettings } from '../scrape.settings.js';
import { runPageActions, takeScreenshot } from './page-actions.handler.js';
import type { RenderedPage, ScrapeEngineRequest } from './rendered-page.types.js';
import { retryAfterOf } from './retry-after.util.js';

/** The `browser` engine: the page rendered by Chromium from the pool (scripts run, heavy resources blocked). */
@Injectable()
export class BrowserScrapeEngine {
  constructor(
    private readonly pool: BrowserPool,
    @Inject(SCRAPE_SETTINGS) private readonly settings: ScrapeSettings,
  ) {}

  render(req: ScrapeEngineRequest): Promise<RenderedPage> {
    return this.pool.run(
      async ({ page, remainingMs, deadline, adsBlocked }) => {
        let response: Response | null;
        // The main frame's last navigation response: a PDF (or any non-document) ends the navigation as a download,
        // which Chromium aborts; its content type still tells the content step what to do with the URL.
        let main: Response | undefined;
        const onResponse = (r: Response) => {
          if (r.frame() === page.mainFrame() && r.request().isNavigationRequest()) main = r;
        };
        page.on('response', onResponse);
        try {
          response = await page.goto(req.url, { waitUntil: 'load', timeout: remainingMs() });
        } catch (e) {
          const notDocument = main ? notADocument(main, e) : undefined;
          if (notDocument) return notDocument;
          throw navigationError(e, req.url);
        } finally {
          page.off('response', onResponse);
        }
        // Content written after load (by script, or from an API the page calls): wait until the page settles, capped,
        // leaving a quarter of the time left (at most 1 s) for reading it. `waitFor` stays a fixed wait on top.
        await settlePage(page, { ...this.settings.settle, deadline: deadline - Math.min(1000, remainingMs() / 4) });
        if (req.waitFor) await page.waitForTimeout(Math.min(req.waitFor, remainingMs()));
        const { actions: steps, screenshot: shot } = req.browser ?? {};
        // The actions, bounded in all (SCRAPE_ACTIONS_MAX_MS) and leaving time to read the page; their navigations
        // go through the pool's guard like every request of the page.
        const actions =
          steps && steps.length > 0
            ? await runPageActions(page, steps, {
                until: Math.min(Date.now() + this.settings.actionsMaxMs, deadline - Math.min(1000, remainingMs() / 4)),
                maxScreenshotBytes: this.settings.maxScreenshotBytes,
                maxHtmlChars: this.settings.maxBodyBytes,
              })
            : undefined;
        const { html, title, length } = await page.evaluate(snapshot, this.settings.maxBodyBytes);
        if (length > this.settings.maxBodyBytes) {
          throw new TrawlError(
            'CONTENT_TOO_LARGE',
            `the page rendered from ${safeHost(req.url)} is ${length} characters of HTML, more than ${this.settings.maxBodyBytes}`,
          );
        }
        // The document as served: the main navigation response's body (a redirect's last hop), decoded.
        const rawHtml = req.rawHtml ? await (main ?? response)?.text().catch(() => undefined) : undefined;
        const screenshot = shot
          ? await takeScreenshot(page, shot, this.settings.maxScreenshotBytes, remainingMs())
          : undefined;
        return {
          html,
          ...(rawHtml !== undefined ? { rawHtml } : {}),
          title,
          status: response?.status() ?? 200,
          url: page.url(),
          contentType: response?.headers()['content-type'] ?? null,
          ...(response ? retryAfterOf(response.status(), response.headers()['retry-after']) : {}),
          engine: 'browser' as const,
          ...(screenshot ? { screenshot } : {}),
          ...(actions ? { actions } : {}),
          ...(req.blockAds ? { adsBlocked: adsBlocked() } : {}),
        };
      },
      {
        deadline: req.deadline,
        ...(req.signal ? { signal: req.signal } : {}),
        headers: req.headers,
        // Caller headers go to the requested page only, unless the caller asked for them everywhere (ADR 0019).
        ...(req.headersEverywhere ? {} : { headersFor: req.url }),
        tenant: req.tenant,
        blockAds: req.blockAds,
        ...(req.browser?.location ? { location: req.browser.location } : {}),
        ...(req.browser?.mobile ? { mobile: true } : {}),
        ...(req.browser?.screenshot?.viewport ? { viewport: req.browser.screenshot.viewport } : {}),
      },
    );
  }
}

/**
 * The rendered document (doctype and outerHTML, as `page.content()` gives) and its title, in one round trip. It runs
 * in the page's world: a page that tampers with its own DOM getters only changes what it returns about itself. The
 * length is measured there: HTML over `maxChars` is not sent across (the caller fails the task with
 * CONTENT_TOO_LARGE), so a page cannot make the service hold or parse an unbounded string.
 */
export function snapshot(maxChars: number): { html: string; title: string; length: number } {
  const d = document.doctype;
  const doctype = d
    ? `<!DOCTYPE ${d.name}${d.publicId ? ` PUBLIC "${d.publicId}"` : ''}${!d.publicId && d.systemId ? ' SYSTEM' : ''}${d.systemId ? ` "${d.systemId}"` : ''}>`
    : '';
  const html = doctype + (document.documentElement?.outerHTML ?? '');
  const title = String(document.title).slice(0, 1024);
  return html.length > maxChars ? { html: '', title, length: html.length } : { html, title, length: html.length };
}

/** A navigation that ended on something other than a document (a PDF, an image...): its response, for the content step. */
function notADocument(main: Response, e: unknown): RenderedPage | undefined {
  const contentType = main.headers()['content-type'] ?? null;
  const type = mediaTypeOf(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return undefined;
  if (!/net::ERR_ABORTED|Download is starting/i.test(e instanceof Error ? e.message : String(e))) return undefined;
  return { html: '', status: main.status(), url: main.url(), title: '', contentType, engine: 'browser' };
}

/** Maps a failed navigation onto the wire codes: timeouts are UPSTREAM_TIMEOUT, DNS and network errors UPSTREAM_ERROR. */
export function navigationError(e: unknown, url: string): TrawlError {
  if (e instanceof TrawlError) return e;
  const host = safeHost(url);
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof errors.TimeoutError || /net::ERR_TIMED_OUT|net::ERR_CONNECTION_TIMED_OUT/.test(message)) {
    return new TrawlError('UPSTREAM_TIMEOUT', `${host} did not load in time`, { cause: e });
  }
  const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (net === 'ERR_NAME_NOT_RESOLVED' || net === 'ERR_NAME_RESOLUTION_FAILED') {
    return new TrawlError('UPSTREAM_ERROR', `could not resolve host ${host} (${net})`, { cause: e });
  }
  if (net) return new TrawlError('UPSTREAM_ERROR', `could not load ${host}: ${net}`, { cause: e });
  return new TrawlError('UPSTREAM_ERROR', `could not load ${host}: ${message.split('\n')[0]}`, { cause: e });
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
