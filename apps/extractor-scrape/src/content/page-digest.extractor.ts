import { TrawlError, type WireError } from '@trawl/contracts';
import { scanNeedsBrowser, scanPage } from '../engines/needs-browser.detector.js';
import { HtmlToMarkdown } from '../markdown/html-to-markdown.renderer.js';
import { pdfText } from './pdf-text.extractor.js';

/** Work on an HTML document: its title, whether it needs a browser, and (when asked) its markdown. */
export interface HtmlDigestTask {
  kind: 'html';
  html: string;
  markdown: boolean;
  /** Stop after the scan when the page needs a browser (the `auto` engine's first look); no markdown then. */
  checkBrowser: boolean;
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
}

/** The answer of a digest, as it crosses the worker boundary (errors as wire errors: a class does not survive it). */
export type DigestOutcome = { ok: true; digest: PageDigest } | { ok: false; error: WireError };

let converter: HtmlToMarkdown | undefined;

/**
 * The CPU-heavy part of a scrape, pure and self-contained so it can run in a worker thread of the page-work pool
 * (or inline for small pages): one linear scan of the HTML, then turndown; or pdf.js for a PDF's text.
 */
export async function digestPage(task: DigestTask): Promise<DigestOutcome> {
  try {
    return { ok: true, digest: task.kind === 'pdf' ? await digestPdf(task) : digestHtml(task) };
  } catch (e) {
    if (e instanceof TrawlError) return { ok: false, error: e.toWire() };
    if (e instanceof RangeError) {
      const error = new TrawlError('PAGE_TOO_COMPLEX', 'the page is nested too deeply to convert to markdown');
      return { ok: false, error: error.toWire() };
    }
    throw e;
  }
}

function digestHtml(task: HtmlDigestTask): PageDigest {
  const scan = scanPage(task.html);
  const needsBrowser = task.checkBrowser && scanNeedsBrowser(scan);
  if (needsBrowser || !task.markdown) return { title: scan.title, needsBrowser };
  converter ??= new HtmlToMarkdown();
  return { title: scan.title, needsBrowser, markdown: converter.convert(task.html) };
}

async function digestPdf(task: PdfDigestTask): Promise<PageDigest> {
  const { title, pages } = await pdfText(task.bytes, task.host);
  const text = pages.filter((p) => p !== '').join('\n\n');
  return { title, needsBrowser: false, text, markdown: text };
}
