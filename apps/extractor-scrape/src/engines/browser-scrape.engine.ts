import { Inject, Injectable } from '@nestjs/common';
import { TrawlError } from '@trawl/contracts';
import { BrowserPool, settlePage } from '@trawl/browser-pool';
import { SCRAPE_SETTINGS, type ScrapeSettings } from '../scrape.settings.js';
import { errors, type Response } from 'playwright-core';
import type { RenderedPage, ScrapeEngineRequest } from './rendered-page.js';

/** The `browser` engine: the page rendered by Chromium from the pool (scripts run, heavy resources blocked). */
@Injectable()
export class BrowserScrapeEngine {
  constructor(
    private readonly pool: BrowserPool,
    @Inject(SCRAPE_SETTINGS) private readonly settings: ScrapeSettings,
  ) {}

  render(req: ScrapeEngineRequest): Promise<RenderedPage> {
    return this.pool.run(
      async ({ page, remainingMs, deadline }) => {
        let response: Response | null;
        try {
          response = await page.goto(req.url, { waitUntil: 'load', timeout: remainingMs() });
        } catch (e) {
          throw navigationError(e, req.url);
        }
        // Content written after load (by script, or from an API the page calls): wait until the page settles, capped,
        // leaving a quarter of the time left (at most 1 s) for reading it. `waitFor` stays a fixed wait on top.
        await settlePage(page, { ...this.settings.settle, deadline: deadline - Math.min(1000, remainingMs() / 4) });
        if (req.waitFor) await page.waitForTimeout(Math.min(req.waitFor, remainingMs()));
        const { html, title } = await page.evaluate(snapshot);
        return {
          html,
          title,
          status: response?.status() ?? 200,
          url: page.url(),
          contentType: response?.headers()['content-type'] ?? null,
          engine: 'browser' as const,
        };
      },
      { deadline: req.deadline, headers: req.headers },
    );
  }
}

/**
 * The rendered document (doctype and outerHTML, as `page.content()` gives) and its title, in one round trip. It runs
 * in the page's world: a page that tampers with its own DOM getters only changes what it returns about itself.
 */
function snapshot(): { html: string; title: string } {
  const d = document.doctype;
  const doctype = d
    ? `<!DOCTYPE ${d.name}${d.publicId ? ` PUBLIC "${d.publicId}"` : ''}${!d.publicId && d.systemId ? ' SYSTEM' : ''}${d.systemId ? ` "${d.systemId}"` : ''}>`
    : '';
  return { html: doctype + (document.documentElement?.outerHTML ?? ''), title: document.title };
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
