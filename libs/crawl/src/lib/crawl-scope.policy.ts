import { siteHost } from './crawl-url.policy.js';

/** What a crawl may visit (its request's scope fields, the patterns compiled). */
export interface CrawlScope {
  /** Host name of the start URL. */
  startHost: string;
  allowSubdomains: boolean;
  allowExternalLinks: boolean;
  includePaths: RegExp[];
  excludePaths: RegExp[];
}

export function crawlScope(request: {
  url: string;
  allowSubdomains: boolean;
  allowExternalLinks: boolean;
  includePaths: readonly string[];
  excludePaths: readonly string[];
}): CrawlScope {
  return {
    startHost: new URL(request.url).hostname,
    allowSubdomains: request.allowSubdomains,
    allowExternalLinks: request.allowExternalLinks,
    includePaths: request.includePaths.map((p) => new RegExp(p)),
    excludePaths: request.excludePaths.map((p) => new RegExp(p)),
  };
}

/** Whether a host is the crawl's own: the start host (with or without `www.`), or a subdomain of it when allowed. */
export function isHostInScope(hostname: string, scope: CrawlScope): boolean {
  if (scope.allowExternalLinks) return true;
  const site = siteHost(scope.startHost);
  const host = siteHost(hostname);
  if (host === site) return true;
  return scope.allowSubdomains && host.endsWith(`.${site}`);
}

/**
 * Whether a (normalised) URL is inside the crawl's scope: its host (isHostInScope) and its path with query against the
 * patterns, as Firecrawl's `includePaths` / `excludePaths` (regular expressions; an exclude wins; no include pattern
 * means every path).
 */
export function isUrlInScope(url: string, scope: CrawlScope): boolean {
  const u = new URL(url);
  if (!isHostInScope(u.hostname, scope)) return false;
  const path = `${u.pathname}${u.search}`;
  if (scope.excludePaths.some((p) => p.test(path))) return false;
  return scope.includePaths.length === 0 || scope.includePaths.some((p) => p.test(path));
}
