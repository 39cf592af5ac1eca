import { Inject, Injectable } from '@nestjs/common';
import { safeFetch } from '@trawl/safe-fetch';
import { SCRAPE_SETTINGS, type ScrapeSettings } from '../scrape.settings.js';
import type { RenderedPage, ScrapeEngineRequest } from './rendered-page.js';

/** The `http` engine: one SSRF-guarded GET (redirects checked hop by hop), no scripts run. */
@Injectable()
export class HttpScrapeEngine {
  constructor(@Inject(SCRAPE_SETTINGS) private readonly settings: ScrapeSettings) {}

  async fetch(req: ScrapeEngineRequest): Promise<RenderedPage> {
    const res = await safeFetch(req.url, {
      allow: this.settings.allow,
      headers: req.headers,
      timeoutMs: Math.max(1, req.deadline - Date.now()),
      maxBodyBytes: this.settings.maxBodyBytes,
    });
    const html = res.text();
    return { html, status: res.status, url: res.url, title: titleOf(html), contentType: res.headers['content-type'] ?? null, engine: 'http' };
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };

/** The document's <title> text, entities of the common kind decoded. */
export function titleOf(html: string): string {
  const raw = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1] ?? '';
  return raw
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, e: string) => ENTITIES[e] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}
