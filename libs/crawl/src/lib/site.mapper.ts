import { randomUUID } from 'node:crypto';
import { TrawlError, type MapLink, type MapSiteReply, type MapSiteRequest } from '@trawl/contracts';
import type { RedisClient } from '@trawl/redis';
import { safeFetch, type AllowList, type SafeFetchResponse } from '@trawl/safe-fetch';
import { crawlScope, isUrlInScope } from './crawl-scope.policy.js';
import { refuseDisallowed } from './disallowed-url.guard.js';
import { normalizeCrawlUrl } from './crawl-url.policy.js';
import { HostBudgetLimiter } from './host-budget.limiter.js';
import { extractPageLinks } from './page-links.extractor.js';
import { robotsRules, robotsUrlOf, type RobotsRules } from './robots-rules.policy.js';
import { DEFAULT_SITEMAP_BOUNDS, readRobots, readSitemaps } from './site-discovery.reader.js';

export interface SiteMapperOptions {
  allow: AllowList;
  robotsAgent: string;
  /** Most HTML pages a map reads for links (breadth first from the start URL). */
  maxPages?: number;
  /** Requests a map has in flight to one host (the same budget in Redis as crawls). */
  maxConcurrency?: number;
}

const DEFAULT_MAX_PAGES = 50;
const PAGE_BYTES = 5 * 1024 * 1024;

/**
 * Maps a site (map.site.v1, ADR 0026): the URLs its sitemaps list and its pages link to, fast: the HTML of at most
 * `maxPages` pages is read for links (plain HTTP through the SSRF guard, no browser, no document made), sitemaps
 * within bounds; robots.txt obeyed and the host's politeness budget shared with crawls. Same host by default,
 * subdomains when asked; `search` keeps the URLs or titles that contain its words, best first.
 */
export class SiteMapper {
  private readonly budget: HostBudgetLimiter;

  constructor(
    redis: RedisClient,
    private readonly options: SiteMapperOptions,
  ) {
    this.budget = new HostBudgetLimiter(redis);
  }

  /** Maps the site of a request as its row's DTO checked it (map.site.v1, MapSiteRequestDto). */
  async map({ request }: MapSiteRequest): Promise<MapSiteReply> {
    const deadline = Date.now() + request.timeout - 250;
    const start = normalizeCrawlUrl(request.url);
    if (!start) throw new TrawlError('VALIDATION_FAILED', 'url must be an http(s) URL', { field: 'url' });
    await refuseDisallowed(start, this.options.allow);
    const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    const fetch = (url: string) => this.fetch(url, deadline, signal);
    const scope = crawlScope({
      url: start,
      allowSubdomains: request.includeSubdomains,
      allowExternalLinks: false,
      includePaths: [],
      excludePaths: [],
    });
    const rulesByHost = new Map<string, Promise<RobotsRules>>();
    const rulesOf = (url: string) => {
      const host = new URL(url).host;
      let rules = rulesByHost.get(host);
      if (!rules) {
        const robotsUrl = robotsUrlOf(url);
        rules = readRobots(fetch, robotsUrl).then((r) => robotsRules(robotsUrl, r, this.options.robotsAgent));
        rulesByHost.set(host, rules);
      }
      return rules;
    };
    const found = new Map<string, string | undefined>();
    const cap = request.search ? Math.max(request.limit * 4, 1000) : request.limit;
    const add = async (url: string, title?: string) => {
      if (found.has(url)) {
        if (title && !found.get(url)) found.set(url, title);
        return true;
      }
      if (found.size >= cap || !isUrlInScope(url, scope) || !(await rulesOf(url)).allowed(url)) return false;
      found.set(url, title);
      return true;
    };
    const startRules = await rulesOf(start);
    if (request.sitemap !== 'skip') {
      const bounds = { ...DEFAULT_SITEMAP_BOUNDS, maxUrls: Math.min(DEFAULT_SITEMAP_BOUNDS.maxUrls, cap * 2) };
      for (const url of await readSitemaps(fetch, start, startRules.sitemaps, bounds)) await add(url);
    }
    if (request.sitemap !== 'only') await this.readLinks(start, fetch, add, deadline);
    let links: MapLink[] = [...found].map(([url, title]) => (title ? { url, title } : { url }));
    if (request.search) links = searched(links, request.search);
    return { links: links.slice(0, request.limit) };
  }

  /** Breadth first from the start page: each page's title and links, until maxPages or the deadline. */
  private async readLinks(
    start: string,
    fetch: (url: string) => Promise<SafeFetchResponse>,
    add: (url: string, title?: string) => Promise<boolean>,
    deadline: number,
  ): Promise<void> {
    const maxPages = this.options.maxPages ?? DEFAULT_MAX_PAGES;
    const queue = [start];
    const queued = new Set(queue);
    let read = 0;
    while (queue.length > 0 && read < maxPages && Date.now() < deadline) {
      const batch = queue.splice(0, Math.min(4, maxPages - read));
      read += batch.length;
      await Promise.all(
        batch.map(async (url) => {
          if (!(await add(url))) return;
          let res: SafeFetchResponse;
          try {
            res = await fetch(url);
          } catch {
            return;
          }
          if (res.status >= 400 || !/html/i.test(res.headers['content-type'] ?? '')) return;
          const page = extractPageLinks(res.text(), res.url);
          const finalUrl = normalizeCrawlUrl(res.url);
          if (finalUrl && page.title) await add(finalUrl, page.title);
          if (page.nofollow) return;
          for (const link of page.links) {
            if ((await add(link)) && !queued.has(link)) {
              queued.add(link);
              queue.push(link);
            }
          }
        }),
      );
    }
  }

  private async fetch(url: string, deadline: number, signal: AbortSignal): Promise<SafeFetchResponse> {
    const host = new URL(url).host;
    const token = await this.budget.acquire(
      { host, maxConcurrency: this.options.maxConcurrency ?? 2, delayMs: 0, slotMs: 20_000, signal },
      randomUUID(),
    );
    if (!token) throw new TrawlError('UPSTREAM_TIMEOUT', 'the map ran out of time');
    try {
      return await safeFetch(url, {
        allow: this.options.allow,
        timeoutMs: Math.max(1, Math.min(10_000, deadline - Date.now())),
        maxBodyBytes: PAGE_BYTES * 10,
        maxRedirects: 5,
        signal,
      });
    } finally {
      await this.budget.release(host, token).catch(() => undefined);
    }
  }
}

/** The links whose URL or title contain the most of the search's words (at least one), best first, stable. */
function searched(links: MapLink[], search: string): MapLink[] {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  return links
    .map((link, i) => {
      const text = `${link.url} ${link.title ?? ''}`.toLowerCase();
      return { link, i, score: words.filter((w) => text.includes(w)).length };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((s) => s.link);
}
