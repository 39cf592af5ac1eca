import { TrawlError, type ScrapeMetadataFields, type WireError } from '@trawl/contracts';
import render from 'dom-serializer';
import { isTag, type ParentNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { pageTitle, scanNeedsBrowser, scanPage } from '../engines/needs-browser.detector.js';
import type { AdHider } from './ad-hider.extractor.js';
import { HtmlToMarkdown } from '../markdown/html-to-markdown.renderer.js';
import {
  articleHints,
  mergeMainContent,
  readabilityArticle,
  withinReadabilityLimits,
} from './main-content-consensus.extractor.js';
import { extractMainContent } from './main-content.extractor.js';
import { pageLinks } from './page-links.extractor.js';
import { documentBase, pageMetadata } from './page-metadata.extractor.js';
import { pdfText } from './pdf-text.extractor.js';
import { selectTags } from './tag-selection.extractor.js';

/**
 * Work on an HTML document: its title, whether it needs a browser, and (when asked) its markdown, links and
 * metadata.
 */
export interface HtmlDigestTask {
  kind: 'html';
  html: string;
  markdown: boolean;
  /** Stop after the scan when the page needs a browser (the `auto` engine's first look); no markdown then. */
  checkBrowser: boolean;
  /** The page's final URL: what relative links and metadata URLs resolve against. */
  url?: string;
  /** The markdown is the page's main content only (ADR 0023); else the whole page. */
  onlyMainContent?: boolean;
  /** CSS selectors: the markdown is made of these elements only (applied before the main content). */
  includeTags?: string[];
  /** CSS selectors: these elements are left out of the markdown (applied before the main content). */
  excludeTags?: string[];
  /** Return every link of the page. */
  links?: boolean;
  /** Return the document's metadata (title, description, language, canonical, Open Graph, Twitter). */
  metadata?: boolean;
  /**
   * blockAds: the elements the ad blocker's element-hiding rules hide are left out of the markdown (ADR 0030), when
   * the digest is given an `AdHider`. Links and metadata are the page's, unchanged.
   */
  hideAds?: boolean;
}

/** What a digest may use beside its task: the ad blocker's element hiding (the page-work pool's threads hold one). */
export interface DigestTools {
  adHider?: AdHider;
}

/** Work on a PDF: its text. */
export interface PdfDigestTask {
  kind: 'pdf';
  bytes: Uint8Array;
  /** Names the page in errors. */
  host: string;
}

export type DigestTask = HtmlDigestTask | PdfDigestTask;

export interface PageDigest {
  title: string;
  needsBrowser: boolean;
  markdown?: string;
  /** A PDF's text, page by page (no markup). */
  text?: string;
  /** Every link of the page, absolute, once each, in page order (when asked). */
  links?: string[];
  /** The document's metadata (when asked). */
  metadata?: ScrapeMetadataFields;
}

/** The answer of a digest, as it crosses the worker boundary (errors as wire errors: a class does not survive it). */
export type DigestOutcome = { ok: true; digest: PageDigest } | { ok: false; error: WireError };

let converter: HtmlToMarkdown | undefined;

/**
 * The CPU-heavy part of a scrape, pure and self-contained so it can run in a worker thread of the page-work pool
 * (or inline for small pages): one linear scan of the HTML, then turndown; or pdf.js for a PDF's text.
 */
export async function digestPage(task: DigestTask, tools: DigestTools = {}): Promise<DigestOutcome> {
  try {
    return { ok: true, digest: task.kind === 'pdf' ? await digestPdf(task) : digestHtml(task, tools) };
  } catch (e) {
    if (e instanceof TrawlError) return { ok: false, error: e.toWire() };
    if (e instanceof RangeError) {
      const error = new TrawlError('PAGE_TOO_COMPLEX', 'the page is nested too deeply to convert to markdown');
      return { ok: false, error: error.toWire() };
    }
    throw e;
  }
}

function digestHtml(task: HtmlDigestTask, tools: DigestTools): PageDigest {
  // The whole scan only where the engine asks whether the page needs a browser; else its title is all it needs.
  const scan = task.checkBrowser ? scanPage(task.html) : undefined;
  const title = scan?.title ?? pageTitle(task.html);
  const needsBrowser = scan !== undefined && scanNeedsBrowser(scan);
  if (needsBrowser) return { title, needsBrowser };
  const digest: PageDigest = { title, needsBrowser };
  const selecting = (task.includeTags?.length ?? 0) > 0 || (task.excludeTags?.length ?? 0) > 0;
  const narrowing = task.markdown && (task.onlyMainContent === true || selecting);
  const hider = task.markdown && task.hideAds === true ? tools.adHider : undefined;
  if (!narrowing && !hider && !task.links && !task.metadata) {
    if (task.markdown) digest.markdown = markdownOf(task.html, baseOfHtml(task.html, task.url));
    return digest;
  }
  const doc = parseDocument(task.html);
  if (task.metadata) digest.metadata = pageMetadata(doc, task.url);
  if (task.links) digest.links = pageLinks(doc, task.url);
  if (!task.markdown) return digest;
  // Relative link and image URLs in the markdown resolve against the document's base (ADR 0023, as Firecrawl's).
  const base = documentBase(doc, task.url);
  const hid = hider ? hider.hide(doc, task.url) > 0 : false;
  if (!narrowing) {
    digest.markdown = markdownOf(hid ? htmlOf(doc) : task.html, base);
    return digest;
  }
  const content = selectTags(doc, task.includeTags, task.excludeTags);
  // With includeTags, the elements asked for are the content: main-content does not narrow them further.
  if (!task.onlyMainContent || (task.includeTags?.length ?? 0) > 0) {
    digest.markdown = markdownOf(htmlOf(content), base);
    return digest;
  }
  // Readability reads the page as the selectors left it and as our first step cleaned it (scripts, styles, controls
  // and hidden elements out, which it leaves out too), with its title: on real pages about half the markup its own
  // DOM would otherwise be built of (ADR 0023). Not serialized for a page past Readability's limits.
  const hints = articleHints(content);
  let page: string | undefined;
  const main = extractMainContent(content, {
    declaredArticle: hints.declared,
    ...(withinReadabilityLimits(hints)
      ? {
          cleaned: (body: ParentNode) =>
            (page = `<html><head><title>${escapeText(digest.title)}</title></head>${htmlOf(body)}</html>`),
        }
      : {}),
  });
  digest.markdown = markdownOf(htmlOf(main.content), base);
  // An article (by our reading, or by the page's own word) is put to a vote with Readability's answer (ADR 0023);
  // any other page keeps ours.
  if ((main.article || hints.declared) && page !== undefined) {
    const other = readabilityArticle(page, hints);
    if (other !== undefined) digest.markdown = mergeMainContent(digest.markdown, other, (h) => markdownOf(h, base));
  }
  return digest;
}

/** Text as HTML character data: `&` and `<` escaped. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

function htmlOf(content: ParentNode): string {
  return render(isTag(content) ? content : content.children, { encodeEntities: 'utf8' });
}

function markdownOf(html: string, base: string | undefined): string {
  converter ??= new HtmlToMarkdown();
  return converter.convert(html, base);
}

/** A document's first `<base href>`, found without parsing it (the whole-page markdown path does not parse). */
const BASE_HREF = /<base\s[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;

/** What a document's relative URLs resolve against: its first `<base href>` (resolved), else the page's URL. */
function baseOfHtml(html: string, pageUrl: string | undefined): string | undefined {
  const m = BASE_HREF.exec(html);
  const href = m ? (m[1] ?? m[2] ?? m[3] ?? '').trim() : '';
  if (href === '') return pageUrl;
  try {
    return new URL(href, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

async function digestPdf(task: PdfDigestTask): Promise<PageDigest> {
  const { title, pages } = await pdfText(task.bytes, task.host);
  const text = pages.filter((p) => p !== '').join('\n\n');
  return { title, needsBrowser: false, text, markdown: text };
}
