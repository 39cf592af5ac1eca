import { Parser } from 'htmlparser2';
import { normalizeCrawlUrl } from './crawl-url.policy.js';

/** What a crawl reads out of a page: where it links to, what it calls itself, its title. */
export interface PageLinks {
  /** Absolute, normalised, distinct, in document order (at most `maxLinks`). */
  links: string[];
  /** `<link rel="canonical">`, absolute and normalised. */
  canonical?: string;
  title?: string;
  /** `<meta name="robots" content="nofollow">`: the page's links are not followed. */
  nofollow: boolean;
}

/** Most links taken from one page (a page of a million links is a trap, not a site). */
export const MAX_LINKS_PER_PAGE = 5000;

/**
 * Reads the links of an HTML page (`<a href>`, `<area href>`), resolved against `<base href>` or the page's URL,
 * skipping `rel="nofollow"` links, and its canonical link and title. Streaming parser: no DOM is built.
 */
export function extractPageLinks(
  html: string,
  pageUrl: string,
  options: { ignoreQuery?: boolean; maxLinks?: number } = {},
): PageLinks {
  const max = options.maxLinks ?? MAX_LINKS_PER_PAGE;
  let base = pageUrl;
  const raw: string[] = [];
  let canonicalRaw: string | undefined;
  let title: string | undefined;
  let inTitle = false;
  let nofollow = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href && raw.length === 0) {
          const resolved = safeUrl(attrs.href, pageUrl);
          if (resolved) base = resolved;
        } else if ((name === 'a' || name === 'area') && attrs.href !== undefined) {
          const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
          if (!rel.includes('nofollow') && raw.length < max * 2) raw.push(attrs.href);
        } else if (name === 'link' && (attrs.rel ?? '').toLowerCase().split(/\s+/).includes('canonical')) {
          if (attrs.href && canonicalRaw === undefined) canonicalRaw = attrs.href;
        } else if (name === 'meta' && (attrs.name ?? '').toLowerCase() === 'robots') {
          if (/\bnofollow\b|\bnone\b/i.test(attrs.content ?? '')) nofollow = true;
        } else if (name === 'title' && title === undefined) {
          inTitle = true;
          title = '';
        }
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const seen = new Set<string>();
  const links: string[] = [];
  for (const href of raw) {
    const url = normalizeCrawlUrl(href.trim(), base, options.ignoreQuery);
    if (url === undefined || seen.has(url)) continue;
    seen.add(url);
    links.push(url);
    if (links.length >= max) break;
  }
  const canonical = canonicalRaw ? normalizeCrawlUrl(canonicalRaw.trim(), base, options.ignoreQuery) : undefined;
  const cleanTitle = title?.replace(/\s+/g, ' ').trim();
  return {
    links,
    ...(canonical ? { canonical } : {}),
    ...(cleanTitle ? { title: cleanTitle } : {}),
    nofollow,
  };
}

function safeUrl(href: string, base: string): string | undefined {
  try {
    return new URL(href, base).href;
  } catch {
    return undefined;
  }
}
