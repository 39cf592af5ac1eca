import type { ParentNode } from 'domhandler';
import { findAll } from './main-content.extractor.js';
import { documentBase } from './page-metadata.extractor.js';

/** Schemes of the links a scrape returns (`javascript:`, `data:` and the like are not links to follow or cite). */
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:']);

/**
 * Every link of the page (`formats: ["links"]`, as Firecrawl): the `href` of each `<a>` and `<area>`, resolved
 * against the document's base, in page order, each URL once. Links that do not resolve, or whose scheme is not
 * http(s), mailto or tel, are left out.
 */
export function pageLinks(doc: ParentNode, pageUrl: string | undefined): string[] {
  const base = documentBase(doc, pageUrl);
  const seen = new Set<string>();
  for (const a of findAll(doc, (e) => (e.name === 'a' || e.name === 'area') && typeof e.attribs.href === 'string')) {
    const href = a.attribs.href.trim();
    if (href === '') continue;
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (LINK_SCHEMES.has(url.protocol)) seen.add(url.href);
  }
  return [...seen];
}
