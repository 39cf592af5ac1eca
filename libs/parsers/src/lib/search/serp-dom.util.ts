// DOM helpers shared by the search-page readers: layout-aware text, Google link unwrapping, and the images Google
// fills in from inline scripts. Nothing here knows a class name.
import type { Cheerio, CheerioAPI } from 'cheerio';
import { isTag, type AnyNode, type Element } from 'domhandler';
import { textContent } from 'domutils';
import { pageQuery } from '../scan/page-query.util.js';

/** Elements that start a new line when rendered: their text is separated from what is around it. */
const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'g-img',
  'cite',
]);
const SKIPPED_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg']);

export function clean(s: string | undefined): string {
  return (s ?? '')
    .replace(/[\u200e\u200f\u200b\u00ad\ufeff]/g, '')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
}

function collect(node: AnyNode, out: string[], skip: ReadonlySet<AnyNode> | undefined): void {
  if (skip?.has(node)) return;
  if (node.type === 'text') {
    out.push((node as unknown as { data: string }).data);
    return;
  }
  if (node.type !== 'tag' && node.type !== 'root') return;
  const el = node as Element;
  if (SKIPPED_TAGS.has(el.name)) return;
  if (/display:\s*none/i.test(el.attribs?.style ?? '')) return; // hidden until a click (menus, "people also search for")
  const block = BLOCK_TAGS.has(el.name);
  if (block) out.push(' ');
  for (const child of el.children ?? []) collect(child as AnyNode, out, skip);
  if (block) out.push(' ');
}

/**
 * Rendered-like text: block elements are separated by a space (cheerio's `.text()` glues "Description" to the
 * sentence after it), inline ones are not, whitespace is collapsed. `skip` leaves out given subtrees.
 */
export function textOf(sel: Cheerio<AnyNode> | undefined, skip?: ReadonlySet<AnyNode>): string {
  if (!sel || sel.length === 0) return '';
  const out: string[] = [];
  for (const node of sel.toArray()) collect(node, out, skip);
  return clean(out.join(''));
}

/** `textOf` of one node (no selection around it); '' for none. */
export function nodeText(node: AnyNode | undefined, skip?: ReadonlySet<AnyNode>): string {
  if (!node) return '';
  const out: string[] = [];
  collect(node, out, skip);
  return clean(out.join(''));
}

/** The ancestors of a node up to the document (not included), nearest first: cheerio's `.parents()` of one node. */
export function* ancestorsOf(node: AnyNode): Generator<Element> {
  for (let up = node.parent; up && up.type !== 'root'; up = up.parent) yield up as Element;
}

/** Attributes cheerio's `.attr()` answers with their own name (HTML mode). */
const BOOLEAN_ATTRIBUTE =
  /^(?:autofocus|autoplay|async|checked|controls|defer|disabled|hidden|loop|multiple|open|readonly|required|scoped|selected)$/i;

/**
 * cheerio's `.attr(name)` of one node, without a selection around it: the attribute's value, undefined when it has
 * none or is no element. An option's or a checkbox's `value` (which cheerio makes up when absent) is not asked here.
 */
export function attrOf(node: AnyNode | undefined, name: string): string | undefined {
  if (!node || !isTag(node) || !Object.hasOwn(node.attribs, name)) return undefined;
  return BOOLEAN_ATTRIBUTE.test(name) ? name : node.attribs[name];
}

/** Every node of a selection and its descendants, for `textOf`'s skip set. */
export function nodeSet(...sels: (Cheerio<AnyNode> | undefined)[]): Set<AnyNode> {
  const set = new Set<AnyNode>();
  for (const sel of sels) for (const n of sel?.toArray() ?? []) set.add(n);
  return set;
}

const GOOGLE_HOST = /(^|\.)google\.[a-z.]+$/i;

export function isGoogleHost(host: string): boolean {
  return GOOGLE_HOST.test(host);
}

/**
 * The destination of a link on a results page: `/url?q=<dest>` (no-JS pages) and `/url?url=` are unwrapped, relative
 * Google links are made absolute against `base`. Returns null for non-http(s) links (javascript:, #fragments).
 */
export function resolveHref(href: string | undefined, base = 'https://www.google.com'): string | null {
  if (!href) return null;
  const h = href.trim();
  if (!h || h.startsWith('#') || /^javascript:/i.test(h)) return null;
  let u: URL;
  try {
    u = new URL(h, base);
  } catch {
    return null;
  }
  if (isGoogleHost(u.hostname) && u.pathname === '/url') {
    const dest = u.searchParams.get('q') ?? u.searchParams.get('url');
    if (dest && /^https?:\/\//i.test(dest)) return dest;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return /^https?:\/\//i.test(h) ? h : u.href;
}

/** True for a link to another Google results page or a Google utility (cache, translate, ads redirect). */
export function isGoogleUtilityLink(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return true;
  }
  const host = u.hostname.toLowerCase();
  if (host.startsWith('translate.') || host === 'webcache.googleusercontent.com') return true;
  if (host.endsWith('googleadservices.com')) return true;
  if (
    /^(www\.)?google\.[a-z.]+$/.test(host) &&
    /^\/(search|aclk|imgres|setprefs|preferences|advanced_search|webhp|sorry)\b/.test(u.pathname)
  ) {
    return true;
  }
  return false;
}

export function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** A bare displayed URL and nothing else ("www.example.com/", "https://example.com › path"). */
export function isDisplayUrl(s: string): boolean {
  return /^(https?:\/\/)?([\w-]+\.)+[a-z]{2,}(\/\S*)?(\s*›\s*[^›]+)*$/i.test(s.trim());
}

/** Looks like a displayed URL ("www.example.com › path", "https://example.com/"). */
export function looksLikeUrl(s: string): boolean {
  return /^(https?:\/\/)?([\w-]+\.)+[a-z]{2,}([/›:\s]|$)/i.test(s.trim());
}

/** Element id to image source, as the readers ask it (a Map answers it too). */
export interface ImageSources {
  has(id: string): boolean;
  get(id: string): string | undefined;
}

const unescapeScript = (s: string): string =>
  s
    .replace(/\\x([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\\//g, '/');

/** A data URI as a script spells it, unescaped on first read (most are never read: only the ids of read images). */
class ScriptSource {
  private value: string | undefined;

  constructor(private readonly raw: string) {}

  read(): string {
    return (this.value ??= unescapeScript(this.raw));
  }
}

/** The script images of a page: plain sources (`google.ldi`) and data URIs unescaped when first read. */
class ScriptImages implements ImageSources {
  private readonly sources = new Map<string, string | ScriptSource>();

  has(id: string): boolean {
    return this.sources.has(id);
  }

  get(id: string): string | undefined {
    const src = this.sources.get(id);
    return typeof src === 'object' ? src.read() : src;
  }

  /** Sets the source of an id that has none yet (the first script to name an id wins). */
  add(id: string, src: string | ScriptSource): void {
    if (!this.sources.has(id)) this.sources.set(id, src);
  }
}

/**
 * Images Google sets from inline scripts after load: `var s='data:image/...';var ii=['dimg_3'];_setImagesSrc(ii,s)`
 * (data URIs) and `google.ldi={"id":"https://..."}` (deferred http images). Maps element id to source.
 */
export function scriptImageMap($: CheerioAPI): ImageSources {
  const images = new ScriptImages();
  const query = pageQuery($);
  for (const el of query.find(query.root, 'script')) {
    const code = textContent(el);
    if (!code) continue;
    // Bounded repeats: a script of a million unclosed `var ii=[` costs a bounded scan from each, not the rest.
    for (const m of code.matchAll(/var s='(data:image\/[^']{1,200000})';\s{0,16}var ii=\[([^\]]{0,4000})\]/g)) {
      const src = new ScriptSource(m[1]);
      for (const id of m[2].split(',')) {
        const key = id.trim().replace(/^['"]|['"]$/g, '');
        if (key) images.add(key, src);
      }
    }
    const ldi = readLdi(code);
    if (ldi) {
      try {
        const obj = JSON.parse(unescapeScript(ldi)) as Record<string, unknown>;
        for (const [k, v] of Object.entries(obj)) if (typeof v === 'string') images.add(k, v);
      } catch {
        // Not JSON after all: ignore, the images stay unresolved.
      }
    }
  }
  return images;
}

/** The `{…}` after the first `google.ldi=` of a script (up to its first `}`); undefined when it does not close. */
function readLdi(code: string): string | undefined {
  const at = code.indexOf('google.ldi={');
  if (at < 0) return undefined;
  const start = at + 'google.ldi='.length;
  const end = code.indexOf('}', start);
  return end < 0 ? undefined : code.slice(start, end + 1);
}

/** An img's source: its own data URI or http src, else what the page's scripts would set for its id. */
export function imageSrc(img: Cheerio<Element>, images: ImageSources): string {
  return imageSrcOf(img[0], images);
}

/** `imageSrc` of one img element. */
export function imageSrcOf(img: AnyNode | undefined, images: ImageSources): string {
  const src = attrOf(img, 'src') ?? '';
  // A 1x1 placeholder gif is ~80 characters; a real favicon or thumbnail is longer.
  if (src.startsWith('data:image/') && src.length > 100) return src;
  const id = attrOf(img, 'id');
  if (id && images.has(id)) return images.get(id) ?? '';
  if (/^https?:\/\//.test(src)) return src;
  const dataSrc = attrOf(img, 'data-src') ?? '';
  if (/^(https?:\/\/|data:image\/)/.test(dataSrc)) return dataSrc;
  return '';
}
