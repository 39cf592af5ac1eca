import htmlEncodingSniffer from 'html-encoding-sniffer';
import { decode, getBOMEncoding, isSupported, labelToName } from 'whatwg-encoding';

/** The media type of a Content-Type value, lower case, without parameters (`text/html`); '' when absent. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
}

/** The `charset` parameter of a Content-Type value, if any (a bounded, linear scan). */
export function charsetOf(contentType: string | null | undefined): string | undefined {
  const value = (contentType ?? '').slice(0, 1024);
  for (const param of value.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^["']|["']$/g, '');
    if (charset) return charset;
  }
  return undefined;
}

function isHtmlish(mediaType: string): boolean {
  return mediaType === '' || mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

/**
 * The encoding a browser would decode this body with: the BOM first, then the Content-Type's charset, then (for
 * HTML, or a body with no type) the prescan of `<meta charset>` / `<meta http-equiv="content-type">` in the first
 * 1024 bytes; UTF-8 when nothing says otherwise. Labels map to WHATWG names (`latin1`, `iso-8859-1` →
 * `windows-1252`, `sjis` → `Shift_JIS`); an encoding iconv-lite cannot decode falls back to UTF-8.
 */
export function sniffEncoding(body: Uint8Array, contentType?: string | null): string {
  const bom = getBOMEncoding(body);
  if (bom) return bom;
  const label = charsetOf(contentType);
  const transport = label ? labelToName(label) : null;
  const name = isHtmlish(mediaTypeOf(contentType))
    ? htmlEncodingSniffer(body, {
        ...(transport ? { transportLayerEncodingLabel: transport } : {}),
        defaultEncoding: 'UTF-8',
      })
    : (transport ?? 'UTF-8');
  return isSupported(name) ? name : 'UTF-8';
}

/** Decodes a body as a browser would (see `sniffEncoding`); a BOM is consumed, never returned as text. */
export function decodeBody(body: Uint8Array, contentType?: string | null): string {
  return decode(body, sniffEncoding(body, contentType));
}
