import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  encodeScrapeHtml,
  TrawlError,
  type ScrapePageRequestDto,
  type ScrapeEngine,
  type ScrapeFormat,
  type ScrapeRequestDto,
  type ScrapeResult,
  type ScreenshotFormat,
} from '@trawl/contracts';
import { replyDeadlineMs } from '@trawl/messaging';
import { checkUrl } from '@trawl/safe-fetch';
import { contentKind, type ContentKind } from './content/content-kind.classifier.js';
import type { HtmlDigestTask, PageDigest } from './content/page-digest.extractor.js';
import { PageWorkPool } from './content/page-work.pool.js';
import { BrowserScrapeEngine } from './engines/browser-scrape.engine.js';
import { HttpScrapeEngine } from './engines/http-scrape.engine.js';
import { LlmFormatsService } from './llm/llm-formats.service.js';
import type { BrowserScrapeOptions, RenderedPage, ScrapeEngineRequest } from './engines/rendered-page.types.js';
import { SCRAPE_SETTINGS, type ScrapeSettings } from './scrape.settings.js';

/** Statuses with which sites often turn away a plain HTTP client but serve a browser (`auto` retries in Chromium). */
const BROWSER_RETRY_STATUSES = new Set([401, 403, 429, 503]);

/** What the content step is asked for an HTML page (the task less the page itself). */
type HtmlWants = Omit<HtmlDigestTask, 'kind' | 'html' | 'checkBrowser' | 'url'>;

interface Content {
  page: RenderedPage;
  kind: ContentKind;
  digest: PageDigest;
}

/**
 * One scrape: SSRF check of the URL first (a refused host never reaches an engine), then the engine (`browser`,
 * `http`, or `auto`: a plain fetch, and the browser only when the page needs scripts to show its content or the
 * plain fetch was turned away), then the content step by the page's type (ADR 0007): HTML is scanned and turned into
 * markdown, a PDF into its text, text/JSON/XML returned as is, any other type refused with UNSUPPORTED_CONTENT_TYPE.
 * The CPU-heavy part runs in the page-work pool under a budget. All under one deadline a little shorter than the
 * caller's timeout so the reply beats it. A 4xx/5xx page is a result with its `rawStatus`, not an error. The `json`
 * and `summary` formats are then answered by the configured language model from the main content (ADR 0029).
 * `abandon` (ADR 0043): its caller stopped waiting; the engine gives its page or fetch up and no later step starts.
 */
@Injectable()
export class ScrapeService {
  constructor(
    @Inject(SCRAPE_SETTINGS) private readonly settings: ScrapeSettings,
    private readonly browser: BrowserScrapeEngine,
    private readonly http: HttpScrapeEngine,
    private readonly work: PageWorkPool,
    private readonly llm: LlmFormatsService,
  ) {}

  async scrape(req: ScrapePageRequestDto, abandon?: AbortSignal): Promise<ScrapeResult> {
    const deadline = Date.now() + replyDeadlineMs(req.timeout);
    // The LLM formats are checked first (no endpoint, a schema that does not compile: 400 before any fetch).
    const llm = this.llm.plan(req.formats);
    // ADR 0040: a key whose language-model tokens of the month are spent is refused before any fetch.
    if (llm) await this.llm.admit(req.tenant);
    await checkUrl(req.url, { allow: this.settings.allow });
    const browser = browserOptions(req);
    const engineReq: ScrapeEngineRequest = {
      url: req.url,
      headers: req.headers,
      ...(req.headersEverywhere ? { headersEverywhere: true } : {}),
      waitFor: req.waitFor,
      deadline,
      ...(abandon ? { signal: abandon } : {}),
      tenant: req.tenant,
      ...(browser ? { browser } : {}),
      // ADR 0030: on unless the request turns it off, as Firecrawl's blockAds.
      blockAds: req.blockAds ?? true,
    };
    const formats = new Set(req.formats.filter((f): f is ScrapeFormat => typeof f === 'string'));
    if (formats.has('rawHtml')) engineReq.rawHtml = true;
    const wants: HtmlWants = {
      // The model reads the main content as markdown (ADR 0029), asked for or not.
      markdown: formats.has('markdown') || llm !== undefined,
      // ADR 0023: Trawl's routes default to the main content, as Firecrawl's do.
      onlyMainContent: req.onlyMainContent ?? true,
      includeTags: req.includeTags,
      excludeTags: req.excludeTags,
      links: formats.has('links'),
      metadata: true,
      // ADR 0030: blockAds also leaves out of the markdown what the lists' element-hiding rules hide.
      hideAds: engineReq.blockAds,
    };
    const { page, kind, digest } = await this.render(
      engineFor(req, browser, this.settings.defaultEngine),
      engineReq,
      wants,
    );
    abandon?.throwIfAborted();
    const html =
      kind === 'html' ? page.html : kind === 'pdf' ? `<pre>${escapeHtml(digest.text ?? '')}</pre>` : page.html;
    const markdown = kind === 'text' ? page.html : (digest.markdown ?? '');
    const title = page.title || digest.title;
    const answers = llm
      ? await this.llm.answer(
          llm,
          { url: page.url, title, text: kind === 'pdf' ? (digest.text ?? '') : markdown },
          deadline,
          req.tenant,
        )
      : {};
    return {
      sourceURL: req.url,
      taskId: randomUUID(),
      edgeId: this.settings.edgeId,
      status: 200,
      rawStatus: page.status,
      ...(formats.has('html') ? { html: encodeScrapeHtml(html) } : {}),
      ...(formats.has('markdown') ? { markdown } : {}),
      ...(formats.has('rawHtml') ? { rawHtml: page.rawHtml ?? page.html } : {}),
      ...(formats.has('links') ? { links: digest.links ?? [] } : {}),
      ...(page.screenshot ? { screenshot: page.screenshot } : {}),
      ...answers,
      ...(page.actions ? { actions: page.actions } : {}),
      metadata: {
        ...digest.metadata,
        title,
        url: page.url,
        sourceURL: req.url,
        statusCode: page.status,
        contentType: page.contentType,
        engine: page.engine,
        ...(page.adsBlocked !== undefined ? { adsBlocked: page.adsBlocked } : {}),
        ...(page.retryAfter !== undefined ? { retryAfter: page.retryAfter } : {}),
      },
    };
  }

  private async render(
    engine: ScrapeRequestDto['engine'],
    req: ScrapeEngineRequest,
    wants: HtmlWants,
  ): Promise<Content> {
    if (engine === 'http') return this.content(await this.http.fetch(req), req, wants);
    if (engine === 'auto') {
      let fetched: RenderedPage;
      try {
        fetched = await this.http.fetch(req);
      } catch (e) {
        // A refused host, a spent deadline or a page over the cap ends here; anything else (reset, TLS quirks) gets a
        // real browser.
        if (e instanceof TrawlError && ['URL_NOT_ALLOWED', 'UPSTREAM_TIMEOUT', 'CONTENT_TOO_LARGE'].includes(e.code))
          throw e;
        return this.content(await this.browser.render(req), req, wants);
      }
      if (BROWSER_RETRY_STATUSES.has(fetched.status)) return this.content(await this.browser.render(req), req, wants);
      const content = await this.content(fetched, req, wants, true);
      return content.digest.needsBrowser ? this.content(await this.browser.render(req), req, wants) : content;
    }
    return this.content(await this.browser.render(req), req, wants);
  }

  /**
   * The content step. A browser that stopped at a non-document (Chromium hands over no PDF or text body) has the
   * URL fetched once more through the HTTP client, and the result says so (`engine: http`).
   */
  private async content(
    page: RenderedPage,
    req: ScrapeEngineRequest,
    wants: HtmlWants,
    checkBrowser = false,
  ): Promise<Content> {
    const kind = contentKind(page.contentType, page.body);
    if (page.engine === 'browser' && kind !== 'html') return this.content(await this.http.fetch(req), req, wants);
    req.signal?.throwIfAborted();
    const what = `the page from ${hostOf(page.url)}`;
    if (kind === 'pdf') {
      const bytes = new Uint8Array(page.body ?? new Uint8Array());
      return {
        page,
        kind,
        digest: await this.work.digest({ kind: 'pdf', bytes, host: hostOf(page.url) }, req.deadline, what),
      };
    }
    if (kind === 'text') return { page, kind, digest: { title: '', needsBrowser: false } };
    const digest = await this.work.digest(
      { kind: 'html', html: page.html, checkBrowser, url: page.url, ...wants },
      req.deadline,
      what,
    );
    return { page, kind, digest };
  }
}

/**
 * The browser options of a request (ADR 0019), or undefined when it has none: the screenshot of `formats` (the
 * string forms or Firecrawl's object), the actions, location and mobile.
 */
function browserOptions(req: ScrapePageRequestDto): BrowserScrapeOptions | undefined {
  let screenshot: ScreenshotFormat | undefined;
  for (const f of req.formats) {
    if (f === 'screenshot') screenshot = { type: 'screenshot' };
    else if (f === 'screenshot@fullPage') screenshot = { type: 'screenshot', fullPage: true };
    else if (typeof f === 'object' && f.type === 'screenshot') screenshot = f;
  }
  const options: BrowserScrapeOptions = {
    ...(screenshot ? { screenshot } : {}),
    ...(req.actions && req.actions.length > 0 ? { actions: req.actions } : {}),
    ...(req.location ? { location: req.location } : {}),
    ...(req.mobile ? { mobile: true } : {}),
  };
  return Object.keys(options).length > 0 ? options : undefined;
}

/**
 * The engine of a scrape: the request's, else the service's default. With browser options the browser serves it
 * (`auto` goes straight to it, and so does a default of `http`); `http` named with them is refused (the gateway
 * refuses it first; this holds for any other producer).
 */
function engineFor(
  req: ScrapePageRequestDto,
  browser: BrowserScrapeOptions | undefined,
  fallback: ScrapeEngine,
): ScrapeEngine {
  if (!browser) return req.engine ?? fallback;
  if (req.engine === 'http')
    throw new TrawlError(
      'VALIDATION_FAILED',
      'screenshot, actions, location and mobile need the browser engine (engine is http)',
      { field: 'engine' },
    );
  return 'browser';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the site';
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
