import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { encodeScrapeHtml, TrawlError, type ScrapeRequestDto, type ScrapeResult } from '@trawl/contracts';
import { checkUrl } from '@trawl/safe-fetch';
import { replyDeadlineMs } from '@trawl/upstream';
import { BrowserScrapeEngine } from './engines/browser-scrape.engine.js';
import { HttpScrapeEngine } from './engines/http-scrape.engine.js';
import { needsBrowser } from './engines/needs-browser.js';
import type { RenderedPage, ScrapeEngineRequest } from './engines/rendered-page.js';
import { HtmlToMarkdown } from './markdown/html-to-markdown.js';
import { SCRAPE_SETTINGS, type ScrapeSettings } from './scrape.settings.js';

/** Statuses with which sites often turn away a plain HTTP client but serve a browser (`auto` retries in Chromium). */
const BROWSER_RETRY_STATUSES = new Set([401, 403, 429, 503]);

/**
 * One scrape: SSRF check of the URL first (a refused host never reaches an engine), then the engine (`browser`,
 * `http`, or `auto`: a plain fetch, and the browser only when the page needs scripts to show its content or the
 * plain fetch was turned away), under one
 * deadline a little shorter than the caller's timeout so the reply beats it. A 4xx/5xx page is a result with its
 * `rawStatus`, not an error.
 */
@Injectable()
export class ScrapeService {
  constructor(
    @Inject(SCRAPE_SETTINGS) private readonly settings: ScrapeSettings,
    private readonly browser: BrowserScrapeEngine,
    private readonly http: HttpScrapeEngine,
    private readonly markdown: HtmlToMarkdown,
  ) {}

  async scrape(req: ScrapeRequestDto): Promise<ScrapeResult> {
    const deadline = Date.now() + replyDeadlineMs(req.timeout);
    await checkUrl(req.url, { allow: this.settings.allow });
    const engineReq: ScrapeEngineRequest = { url: req.url, headers: req.headers, waitFor: req.waitFor, deadline };
    const page = await this.render(req.engine ?? this.settings.defaultEngine, engineReq);
    const formats = new Set(req.formats);
    return {
      sourceURL: req.url,
      taskId: randomUUID(),
      edgeId: this.settings.edgeId,
      status: 200,
      rawStatus: page.status,
      ...(formats.has('html') ? { html: encodeScrapeHtml(page.html) } : {}),
      ...(formats.has('markdown') ? { markdown: this.markdown.convert(page.html) } : {}),
      metadata: { title: page.title, url: page.url, engine: page.engine, contentType: page.contentType },
    };
  }

  private async render(engine: ScrapeRequestDto['engine'], req: ScrapeEngineRequest): Promise<RenderedPage> {
    if (engine === 'http') return this.http.fetch(req);
    if (engine === 'auto') {
      let fetched: RenderedPage;
      try {
        fetched = await this.http.fetch(req);
      } catch (e) {
        // A refused host or a spent deadline ends here; anything else (reset, TLS quirks) gets a real browser.
        if (e instanceof TrawlError && (e.code === 'URL_NOT_ALLOWED' || e.code === 'UPSTREAM_TIMEOUT')) throw e;
        return this.browser.render(req);
      }
      const isHtml = !fetched.contentType || /html/i.test(fetched.contentType);
      const refusedPlainClient = BROWSER_RETRY_STATUSES.has(fetched.status);
      return refusedPlainClient || (isHtml && needsBrowser(fetched.html)) ? this.browser.render(req) : fetched;
    }
    return this.browser.render(req);
  }
}
