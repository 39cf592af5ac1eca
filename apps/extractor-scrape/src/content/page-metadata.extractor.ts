import { isTag, isText, type AnyNode, type Element, type ParentNode } from 'domhandler';
import type { ScrapeMetadataFields } from '@trawl/contracts';
import { findAll, findFirst } from './main-content.extractor.js';

/** At most this many characters of one metadata value (hostile pages put megabytes in a meta tag). */
const MAX_VALUE_CHARS = 2048;

/** Open Graph properties read, with Firecrawl's metadata names. */
const OPEN_GRAPH: Record<string, keyof ScrapeMetadataFields> = {
  'og:title': 'ogTitle',
  'og:description': 'ogDescription',
  'og:url': 'ogUrl',
  'og:image': 'ogImage',
  'og:site_name': 'ogSiteName',
  'og:locale': 'ogLocale',
  'og:type': 'ogType',
  'og:audio': 'ogAudio',
  'og:video': 'ogVideo',
  'og:determiner': 'ogDeterminer',
};

/**
 * The document's metadata, with Firecrawl's names: `title`, `description`, `language` (the root's `lang`),
 * `keywords`, `robots`, `canonical` (the `rel=canonical` link, absolute), `favicon`, the Open Graph fields
 * (`ogTitle`, `ogImage` ...) and the Twitter card fields under their own names (`twitter:card`, `twitter:title` ...).
 * Absent fields are left out. URLs are resolved against the document's base (its `<base href>`, else `pageUrl`).
 */
export function pageMetadata(doc: ParentNode, pageUrl: string | undefined): ScrapeMetadataFields {
  const out: ScrapeMetadataFields = {};
  const base = documentBase(doc, pageUrl);
  const html = findFirst(doc, (e) => e.name === 'html');
  const lang = html?.attribs.lang ?? html?.attribs['xml:lang'];
  if (lang?.trim()) out.language = clip(lang.trim());
  const title = findFirst(doc, (e) => e.name === 'title' && !isWithin(e, 'svg'));
  if (title) {
    const text = textOf(title).replace(/\s+/g, ' ').trim();
    if (text) out.title = clip(text);
  }
  for (const meta of findAll(doc, (e) => e.name === 'meta')) {
    const key = (meta.attribs.property ?? meta.attribs.name ?? '').trim().toLowerCase();
    const value = (meta.attribs.content ?? '').trim();
    if (!key || !value) continue;
    if (key === 'description' && out.description === undefined) out.description = clip(value);
    else if (key === 'keywords' && out.keywords === undefined) out.keywords = clip(value);
    else if (key === 'robots' && out.robots === undefined) out.robots = clip(value);
    else if (key in OPEN_GRAPH) {
      const field = OPEN_GRAPH[key];
      if (out[field] === undefined)
        out[field] = clip(key === 'og:image' || key === 'og:url' ? absolute(value, base) : value);
    } else if (key.startsWith('twitter:') && key.length <= 64) {
      const field = key as `twitter:${string}`;
      if (out[field] === undefined) out[field] = clip(value);
    }
  }
  for (const link of findAll(doc, (e) => e.name === 'link' && typeof e.attribs.href === 'string')) {
    const rels = (link.attribs.rel ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('canonical') && out.canonical === undefined)
      out.canonical = clip(absolute(link.attribs.href, base));
    if (rels.includes('icon') && out.favicon === undefined) out.favicon = clip(absolute(link.attribs.href, base));
  }
  return out;
}

/** The URL the document's relative links resolve against: its first `<base href>`, else the page's URL. */
export function documentBase(doc: ParentNode, pageUrl: string | undefined): string | undefined {
  const base = findFirst(doc, (e) => e.name === 'base' && typeof e.attribs.href === 'string');
  if (!base) return pageUrl;
  try {
    return new URL(base.attribs.href.trim(), pageUrl).href;
  } catch {
    return pageUrl;
  }
}

function absolute(href: string, base: string | undefined): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

function clip(value: string): string {
  return value.length > MAX_VALUE_CHARS ? value.slice(0, MAX_VALUE_CHARS) : value;
}

function isWithin(el: Element, name: string): boolean {
  for (let n = el.parent; n && isTag(n); n = n.parent) if (n.name === name) return true;
  return false;
}

function textOf(el: Element): string {
  let out = '';
  const stack: AnyNode[] = [el];
  while (stack.length > 0 && out.length < MAX_VALUE_CHARS) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) out += node.data;
    else if (isTag(node)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out;
}
