import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '../error-codes.constants.js';
import { parseDto } from '../dto.parser.js';
import { ExtractUrlRequestDto } from './extract-url-request.dto.js';
import { RenderPageRequestDto } from './render-page-request.dto.js';
import { SearchBatchRequestDto } from './search-batch-request.dto.js';
import { WebSearchRequestDto } from './web-search-request.dto.js';

function failure(fn: () => unknown): TrawlError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TrawlError) return e;
    throw e;
  }
  throw new Error('expected a validation failure');
}

describe('RenderPageRequestDto', () => {
  it('takes a URL with hl, gl, cookies and a session hint', () => {
    const dto = parseDto(RenderPageRequestDto, {
      url: 'http://127.0.0.1:8090/search?q=tea',
      timeout: 9000,
      hl: 'de',
      gl: 'DE',
      cookies: [{ name: 'SOCS', value: 'CAESHAgBEhJnd3NfMjAyMzA4MTAtMF9SQzIaAmVuIAEaBgiAo_CmBg' }],
      session: 'tenant-1',
    });
    expect(dto).toMatchObject({ timeout: 9000, hl: 'de', gl: 'DE', session: 'tenant-1' });
  });

  it('names the field of a bad cookie, URL or gl', () => {
    expect(
      failure(() => parseDto(RenderPageRequestDto, { url: 'http://x.test/', cookies: [{ name: 'a b', value: 'x' }] }))
        .field,
    ).toBe('cookies');
    expect(failure(() => parseDto(RenderPageRequestDto, { url: 'ftp://x.test/' })).field).toBe('url');
    expect(failure(() => parseDto(RenderPageRequestDto, { url: 'http://x.test/', gl: 'Germany' })).field).toBe('gl');
  });
});

describe('engine on the upstream requests (extension of the spec)', () => {
  it('is optional and one of http, browser, auto', () => {
    expect(parseDto(WebSearchRequestDto, { q: 'tea' }).engine).toBeUndefined();
    expect(parseDto(WebSearchRequestDto, { q: 'tea', engine: 'browser' }).engine).toBe('browser');
    expect(parseDto(ExtractUrlRequestDto, { url: 'https://www.amazon.com/dp/B0', engine: 'http' }).engine).toBe('http');
    const e = failure(() =>
      parseDto(SearchBatchRequestDto, { querys: ['tea'], webhook: 'https://h.example.com/', engine: 'curl' }),
    );
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', field: 'engine' });
    expect(e.message).toContain('engine must be one of: http, browser, auto');
  });
});
