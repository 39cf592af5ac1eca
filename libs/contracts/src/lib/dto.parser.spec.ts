import { describe, expect, it } from '@jest/globals';
import { TrawlError } from './error-codes.constants.js';
import { MapsBatchRequestDto } from './dto/maps-batch-request.dto.js';
import { ScrapeRequestDto } from './dto/scrape-request.dto.js';
import { UrlBatchRequestDto } from './dto/url-batch-request.dto.js';
import { parseDto } from './dto.parser.js';

function failure(fn: () => unknown): TrawlError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TrawlError) return e;
    throw e;
  }
  throw new Error('expected a validation failure');
}

describe('parseDto', () => {
  it('applies the spec defaults to a maps batch', () => {
    const dto = parseDto(MapsBatchRequestDto, { querys: ['coffee'], webhook: 'https://hooks.example.com/x' });
    expect(dto).toMatchObject({ ll: '@46.423669,-122.176129,3z', hl: 'en', start: 0, num: 100, timeout: 25000 });
  });

  it('defaults scrape formats to markdown', () => {
    expect(parseDto(ScrapeRequestDto, { url: 'http://127.0.0.1:8080/a' }).formats).toEqual(['markdown']);
  });

  it('names formats when a format is unknown', () => {
    const e = failure(() => parseDto(ScrapeRequestDto, { url: 'https://example.com', formats: ['pdf'] }));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.field).toBe('formats');
    expect(e.message).toContain('formats');
  });

  it('names the missing required field', () => {
    const e = failure(() =>
      parseDto(UrlBatchRequestDto, { urls: ['https://example.com'], webhook: 'https://h.example' }),
    );
    expect(e.field).toBe('type');
  });

  it("takes a URL batch without a webhook (a peer API's batch; the native route requires one, ADR 0024)", () => {
    const dto = parseDto(UrlBatchRequestDto, { urls: ['https://example.com'], type: 'scrape' });
    expect(dto.webhook).toBeUndefined();
    expect(
      failure(() => parseDto(UrlBatchRequestDto, { urls: ['https://a.example'], type: 'scrape', webhook: 'x' })).field,
    ).toBe('webhook');
  });

  it('rejects an unknown type listing the allowed values', () => {
    const e = failure(() =>
      parseDto(UrlBatchRequestDto, { urls: ['https://a.example'], webhook: 'https://h.example', type: 'pdf' }),
    );
    expect(e.message).toContain('retail, mp-maps, mp-search, scrape');
  });

  it('rejects non-http URLs in a batch', () => {
    const e = failure(() =>
      parseDto(UrlBatchRequestDto, { urls: ['ftp://a.example/x'], webhook: 'https://h.example', type: 'scrape' }),
    );
    expect(e.field).toBe('urls');
  });

  it('rejects wrong types and out-of-range numbers', () => {
    expect(failure(() => parseDto(ScrapeRequestDto, { url: 'https://a.example', timeout: '5' })).field).toBe('timeout');
    expect(failure(() => parseDto(ScrapeRequestDto, { url: 'https://a.example', timeout: 10 })).field).toBe('timeout');
  });

  it('rejects properties the operation does not know', () => {
    expect(failure(() => parseDto(ScrapeRequestDto, { url: 'https://a.example', bogus: 1 })).message).toContain(
      'bogus',
    );
  });

  it('rejects a body that is not an object', () => {
    expect(failure(() => parseDto(ScrapeRequestDto, [1, 2])).field).toBe('body');
  });
});
