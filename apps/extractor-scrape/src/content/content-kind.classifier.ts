import { TrawlError } from '@trawl/contracts';
import { mediaTypeOf } from '@trawl/safe-fetch';

/** What a scrape does with a page, by its type: parse it as a document, read a PDF's text, return text, or refuse. */
export type ContentKind = 'html' | 'pdf' | 'text';

const PDF_MAGIC = Buffer.from('%PDF-');
const HTML_TYPES = new Set(['', 'text/html', 'application/xhtml+xml']);

/**
 * The kind of a page from its Content-Type (and, for a body served as `application/octet-stream` or with no type,
 * the `%PDF-` signature). HTML/XHTML (or no type) is a document; `application/pdf` a PDF; `text/*`, JSON and XML are
 * returned as text (as Firecrawl does); anything else (images, audio, video, fonts, archives, octet-stream) is
 * UNSUPPORTED_CONTENT_TYPE naming the type.
 */
export function contentKind(contentType: string | null, body?: Buffer): ContentKind {
  const type = mediaTypeOf(contentType);
  const pdfBytes = body !== undefined && body.subarray(0, 1024).includes(PDF_MAGIC);
  if (type === 'application/pdf' || type === 'application/x-pdf') return 'pdf';
  if ((type === '' || type === 'application/octet-stream') && pdfBytes) return 'pdf';
  if (HTML_TYPES.has(type)) return 'html';
  if (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type === 'application/xml' ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  ) {
    return 'text';
  }
  throw new TrawlError(
    'UNSUPPORTED_CONTENT_TYPE',
    `the page is of type ${type.slice(0, 100)}, which is not scraped (HTML, XHTML, PDF, text, JSON and XML are)`,
  );
}
