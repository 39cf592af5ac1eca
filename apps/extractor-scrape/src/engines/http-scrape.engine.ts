import { Inject, Injectable } from '@nestjs/common';
import { mediaTypeOf, safeFetch } from '@trawl/safe-fetch';
import { SCRAPE_SETTINGS, type ScrapeSettings } from '../scrape.settings.js';
import { pageTitle } from './needs-browser.detector.js';
import type { RenderedPage, ScrapeEngineRequest } from './rendered-page.types.js';
import { retryAfterOf } from './retry-after.util.js';

/**
 * The `http` engine: one GET through Trawl's one HTTP client (`safeFetch`: SSRF-checked hop by hop, decompressed,
 * capped, decoded as browsers do), no scripts run. Text types are decoded; other bodies are kept as bytes for the
 * content step (PDF) to read or refuse.
 */
@Injectable()
export class HttpScrapeEngine {
  constructor(@Inject(SCRAPE_SETTINGS) private readonly settings: ScrapeSettings) {}

  async fetch(req: ScrapeEngineRequest): Promise<RenderedPage> {
    const res = await safeFetch(req.url, {
      allow: this.settings.allow,
      headers: req.headers,
      timeoutMs: Math.max(1, req.deadline - Date.now()),
      ...(req.signal ? { signal: req.signal } : {}),
      maxBodyBytes: this.settings.maxBodyBytes,
    });
    const contentType = res.headers['content-type'] ?? null;
    const html = isTextual(mediaTypeOf(contentType)) ? res.text() : '';
    return {
      html,
      ...(req.rawHtml ? { rawHtml: html } : {}),
      body: res.body,
      status: res.status,
      url: res.url,
      contentType,
      ...retryAfterOf(res.status, res.headers['retry-after']),
      engine: 'http',
    };
  }
}

/** Whether a media type is text a scrape returns as such (HTML, XHTML, text/*, JSON, XML). '' (no type) counts. */
export function isTextual(mediaType: string): boolean {
  return (
    mediaType === '' ||
    mediaType.startsWith('text/') ||
    mediaType === 'application/xhtml+xml' ||
    mediaType === 'application/json' ||
    mediaType === 'application/xml' ||
    mediaType.endsWith('+json') ||
    mediaType.endsWith('+xml')
  );
}

/** The document's first <title> text, entities decoded, whitespace collapsed (one linear pass; see `scanPage`). */
export function titleOf(html: string): string {
  return pageTitle(html);
}
