import { gunzipSync } from 'node:zlib';
import type { SafeFetchResponse } from '@trawl/safe-fetch';
import { normalizeCrawlUrl } from './crawl-url.policy.js';
import type { RobotsRecord } from './robots-rules.policy.js';
import { parseSitemap } from './sitemap.parser.js';

/** Fetches one URL for discovery (robots.txt, a sitemap): through the SSRF guard and the host's budget. */
export type DiscoveryFetch = (url: string) => Promise<SafeFetchResponse>;

export interface SitemapBounds {
  /** Most sitemap files read (indexes included). */
  maxFiles: number;
  /** Most page URLs taken. */
  maxUrls: number;
  /** Deepest index nesting followed. */
  maxDepth: number;
  /** Largest sitemap after gunzip, bytes. */
  maxBytes: number;
}

export const DEFAULT_SITEMAP_BOUNDS: SitemapBounds = {
  maxFiles: 50,
  maxUrls: 100_000,
  maxDepth: 3,
  maxBytes: 50 * 1024 * 1024,
};

/** Reads a host's robots.txt: 2xx its text, 4xx none, anything else unreachable. */
export async function readRobots(fetch: DiscoveryFetch, robotsUrl: string): Promise<RobotsRecord> {
  try {
    const res = await fetch(robotsUrl);
    if (res.status >= 200 && res.status < 300) return { status: 'ok', text: res.text() };
    if (res.status >= 400 && res.status < 500) return { status: 'none' };
    return { status: 'unreachable' };
  } catch {
    return { status: 'unreachable' };
  }
}

/**
 * The page URLs of a site's sitemaps: those robots.txt names and `/sitemap.xml`, sitemap indexes followed (breadth
 * first, at most `maxDepth` deep), gzip undone, within the bounds; only sitemaps on the site's own host are read.
 * A sitemap that fails is skipped. URLs come back normalised and distinct, in the order found.
 */
export async function readSitemaps(
  fetch: DiscoveryFetch,
  siteUrl: string,
  fromRobots: readonly string[],
  bounds: SitemapBounds = DEFAULT_SITEMAP_BOUNDS,
  ignoreQuery = false,
): Promise<string[]> {
  const host = new URL(siteUrl).host;
  const queue: { url: string; depth: number }[] = [];
  const queued = new Set<string>();
  const enqueue = (raw: string, depth: number) => {
    const url = normalizeCrawlUrl(raw, siteUrl);
    if (!url || queued.has(url) || new URL(url).host !== host) return;
    queued.add(url);
    queue.push({ url, depth });
  };
  for (const s of fromRobots) enqueue(s, 0);
  enqueue('/sitemap.xml', 0);
  const urls: string[] = [];
  const seen = new Set<string>();
  let files = 0;
  while (queue.length > 0 && files < bounds.maxFiles && urls.length < bounds.maxUrls) {
    const { url, depth } = queue.shift()!;
    files += 1;
    let text: string;
    try {
      const res = await fetch(url);
      if (res.status < 200 || res.status >= 300) continue;
      text = sitemapText(res, bounds.maxBytes);
    } catch {
      continue;
    }
    const entries = parseSitemap(text, bounds.maxUrls - urls.length);
    for (const raw of entries.urls) {
      const u = normalizeCrawlUrl(raw, url, ignoreQuery);
      if (u && !seen.has(u)) {
        seen.add(u);
        urls.push(u);
      }
    }
    if (depth < bounds.maxDepth) for (const s of entries.sitemaps) enqueue(s, depth + 1);
  }
  return urls;
}

/** A sitemap's text: gzip undone when the file is gzip (`.gz` served as is), bounded. */
function sitemapText(res: SafeFetchResponse, maxBytes: number): string {
  const body = res.body;
  if (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) {
    return gunzipSync(body, { maxOutputLength: maxBytes }).toString('utf8');
  }
  return res.text();
}
