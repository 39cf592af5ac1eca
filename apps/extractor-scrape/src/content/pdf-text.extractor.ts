import { TrawlError } from '@trawl/contracts';

/** A PDF as text: its title (document info) and the text of each page. */
export interface PdfText {
  title: string;
  pages: string[];
}

interface TextItemLike {
  str?: string;
  hasEOL?: boolean;
}

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;

/**
 * pdf.js (legacy build, for Node 20) with its worker code loaded into this thread: `globalThis.pdfjsWorker` makes
 * pdf.js run its "fake worker" in-process, so nothing is fetched and no extra thread is started (the caller is
 * already a worker of the page-work pool).
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjs;
}

/**
 * The text of a PDF, page by page (text only: no rendering, no canvas, no fonts loaded, no eval). A file pdf.js
 * cannot read is PAGE_NOT_RECOGNISED naming the host.
 */
export async function pdfText(bytes: Uint8Array, host: string): Promise<PdfText> {
  const { getDocument, VerbosityLevel } = await loadPdfJs();
  const task = getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    const doc = await task.promise;
    const info = (await doc.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items as TextItemLike[]) {
        text += item.str ?? '';
        if (item.hasEOL) text += '\n';
      }
      pages.push(text.replace(/[ \t]+\n/g, '\n').trim());
      page.cleanup();
    }
    return { title: typeof info?.Title === 'string' ? info.Title.trim() : '', pages };
  } catch (e) {
    if (e instanceof TrawlError) throw e;
    throw new TrawlError(
      'PAGE_NOT_RECOGNISED',
      `the PDF from ${host} could not be read: ${(e as Error).message ?? e}`,
      { cause: e },
    );
  } finally {
    await task.destroy();
  }
}
