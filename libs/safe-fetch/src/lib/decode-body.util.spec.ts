import { describe, expect, it } from '@jest/globals';
import iconv from 'iconv-lite';
import { charsetOf, decodeBody, mediaTypeOf, sniffEncoding } from './decode-body.util.js';

const CAFE = 'Un café crème à côté';

describe('decodeBody (decoding as browsers do)', () => {
  it('reads a windows-1252 page declared only in <meta charset>', () => {
    const html = `<html><head><meta charset="windows-1252"><title>x</title></head><body>${CAFE}</body></html>`;
    const bytes = iconv.encode(html, 'windows-1252');
    expect(sniffEncoding(bytes, 'text/html')).toBe('windows-1252');
    expect(decodeBody(bytes, 'text/html')).toContain(CAFE);
  });

  it('reads a page declared in <meta http-equiv="Content-Type"> with no type at all in the header', () => {
    const html = `<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>${CAFE}</p>`;
    expect(decodeBody(iconv.encode(html, 'latin1'), undefined)).toContain(CAFE);
  });

  it('reads a Shift_JIS page', () => {
    const html = '<meta charset="Shift_JIS"><p>日本語のページです</p>';
    const bytes = iconv.encode(html, 'Shift_JIS');
    expect(sniffEncoding(bytes, 'text/html')).toBe('Shift_JIS');
    expect(decodeBody(bytes, 'text/html')).toContain('日本語のページです');
  });

  it("lets the header's charset win over <meta>, and a BOM win over both", () => {
    const html = `<meta charset="windows-1252"><p>${CAFE}</p>`;
    expect(decodeBody(Buffer.from(html, 'utf8'), 'text/html; charset=UTF-8')).toContain(CAFE);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html, 'utf8')]);
    expect(decodeBody(bom, 'text/html; charset=windows-1252')).toBe(html);
  });

  it('defaults to UTF-8 and does not prescan non-HTML types', () => {
    expect(decodeBody(Buffer.from('{"a":"é"}'), 'application/json')).toBe('{"a":"é"}');
    expect(sniffEncoding(Buffer.from('<meta charset="windows-1252">'), 'text/plain')).toBe('UTF-8');
  });

  it('falls back to UTF-8 for an unknown charset label', () => {
    expect(decodeBody(Buffer.from('é'), 'text/html; charset=x-nonsense')).toBe('é');
  });

  it('parses Content-Type parameters', () => {
    expect(mediaTypeOf('Text/HTML; charset="Shift_JIS"')).toBe('text/html');
    expect(charsetOf('text/html; q=1; charset="Shift_JIS"')).toBe('Shift_JIS');
    expect(charsetOf('text/html')).toBeUndefined();
    expect(mediaTypeOf(null)).toBe('');
  });
});
