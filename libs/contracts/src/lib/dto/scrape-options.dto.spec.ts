import { describe, expect, it } from '@jest/globals';
import { parseDto } from '../dto.parser.js';
import { TrawlError } from '../error-codes.constants.js';
import { LIMITS } from '../limits.constants.js';
import { ExtractRequestDto } from './extract-request.dto.js';
import { PAGE_SCRAPE_OPTION_FIELDS } from './scrape-options.dto.js';
import { ScrapeRequestDto } from './scrape-request.dto.js';
import { UrlBatchRequestDto } from './url-batch-request.dto.js';

function refusal(cls: new () => object, body: unknown): TrawlError {
  try {
    parseDto(cls, body);
  } catch (e) {
    return e as TrawlError;
  }
  throw new Error('accepted');
}

const batch = (scrapeOptions: unknown, more: Record<string, unknown> = {}) => ({
  urls: ['https://a.test/'],
  type: 'scrape',
  scrapeOptions,
  ...more,
});

/** One of each page option, valid on POST /scrape. */
const EVERY_OPTION = {
  formats: ['markdown', 'rawHtml', 'links', 'screenshot'],
  headers: { 'X-Probe': 'p1', Cookie: 'a=1' },
  headersEverywhere: false,
  waitFor: 500,
  onlyMainContent: false,
  includeTags: ['article', '.post-body'],
  excludeTags: ['.ad'],
  blockAds: false,
  actions: [{ type: 'click', selector: '#more' }],
  location: { country: 'DE', languages: ['de-DE'] },
  mobile: true,
};

/** Values POST /scrape refuses, by option: a URL batch's `scrapeOptions` must refuse each by the same rule. */
const BAD_VALUES: [string, unknown][] = [
  ['formats', ['pdf']],
  ['formats', []],
  ['headers', { Host: 'other.test' }],
  ['headers', { 'X-Probe': 1 }],
  ['headersEverywhere', 'yes'],
  ['waitFor', LIMITS.maxWaitForMs + 1],
  ['waitFor', -1],
  ['onlyMainContent', 'no'],
  ['includeTags', 'article'],
  ['includeTags', ['']],
  ['excludeTags', Array.from({ length: LIMITS.maxTagSelectors + 1 }, () => 'p')],
  ['excludeTags', ['x'.repeat(LIMITS.maxTagSelectorChars + 1)]],
  ['blockAds', 'no'],
  ['actions', [{ type: 'hover' }]],
  ['location', { country: 'Germany' }],
  ['mobile', 'yes'],
];

describe('scrapeOptions: POST /scrape’s per-page options on /extract and URL batches (ADR 0039)', () => {
  it('lists every field of POST /scrape but the request’s own (url, timeout, engine, maxAge, storeInCache)', () => {
    const scrapeFields = Object.keys(parseDto(ScrapeRequestDto, { url: 'https://a.test/', ...EVERY_OPTION }));
    expect(new Set(scrapeFields)).toEqual(new Set([...PAGE_SCRAPE_OPTION_FIELDS, 'url', 'timeout']));
    expect(PAGE_SCRAPE_OPTION_FIELDS).not.toEqual(expect.arrayContaining(['engine']));
    expect(PAGE_SCRAPE_OPTION_FIELDS).not.toEqual(expect.arrayContaining(['maxAge']));
  });

  it('takes every page option in a URL batch and in /extract, stored as given (no default added)', () => {
    expect(parseDto(UrlBatchRequestDto, batch(EVERY_OPTION)).scrapeOptions).toEqual(EVERY_OPTION);
    expect(parseDto(UrlBatchRequestDto, batch({ onlyMainContent: true })).scrapeOptions).toEqual({
      onlyMainContent: true,
    });
    const extract = { url: 'https://a.test/', type: 'scrape', scrapeOptions: EVERY_OPTION };
    expect(parseDto(ExtractRequestDto, extract).scrapeOptions).toEqual(EVERY_OPTION);
  });

  it.each(BAD_VALUES)('refuses %s %j as POST /scrape does, naming scrapeOptions and the option', (field, value) => {
    const direct = refusal(ScrapeRequestDto, { url: 'https://a.test/', [field]: value });
    expect(direct.field).toBe(field);
    const nested = refusal(UrlBatchRequestDto, batch({ [field]: value }));
    expect(nested.code).toBe('VALIDATION_FAILED');
    expect(nested.field).toBe('scrapeOptions');
    expect(nested.message).toContain(`scrapeOptions.${field}`);
    // The same rule says the same thing.
    expect(nested.message).toContain(direct.message.split(' (and ')[0].replace(/^[^ ]+ /, ''));
  });

  it('refuses an option that is not a page option, scrapeOptions on another type, and browser options on http', () => {
    expect(refusal(UrlBatchRequestDto, batch({ maxAge: 1000 })).message).toMatch(
      /scrapeOptions\.maxAge is not a page option/,
    );
    expect(refusal(UrlBatchRequestDto, batch({ engine: 'http' })).message).toMatch(/scrapeOptions\.engine/);
    expect(refusal(UrlBatchRequestDto, batch([])).message).toMatch(/scrapeOptions must be an object/);
    expect(refusal(UrlBatchRequestDto, batch({ waitFor: 1 }, { type: 'retail' })).message).toMatch(
      /apply to type scrape only/,
    );
    const http = refusal(UrlBatchRequestDto, batch({ actions: [{ type: 'scrape' }] }, { engine: 'http' }));
    expect(http.message).toMatch(/scrapeOptions\.actions need the browser engine/);
    expect(refusal(UrlBatchRequestDto, batch({ formats: ['screenshot'] }, { engine: 'http' })).message).toMatch(
      /screenshot needs the browser engine/,
    );
    // Options that need no browser are taken on http.
    const plain = { onlyMainContent: false, includeTags: ['main'], headers: { 'X-A': '1' }, waitFor: 10 };
    expect(parseDto(UrlBatchRequestDto, batch(plain, { engine: 'http' })).scrapeOptions).toEqual(plain);
  });

  it('refuses a batch whose options, stored with each task, would pass the bound in all (ADR 0039)', () => {
    const urls = Array.from({ length: 1000 }, (_, i) => `https://a.test/${i}`);
    const script = 'x'.repeat(Math.ceil(LIMITS.maxBatchScrapeOptionsBytes / urls.length));
    const big = { actions: [{ type: 'executeJavascript', script }] };
    const e = refusal(UrlBatchRequestDto, { urls, type: 'scrape', scrapeOptions: big });
    expect(e.field).toBe('scrapeOptions');
    expect(e.message).toMatch(/stored with each of the 1000 tasks/);
    // The same options for fewer URLs, and /extract's single URL, are taken.
    expect(() =>
      parseDto(UrlBatchRequestDto, { urls: urls.slice(0, 500), type: 'scrape', scrapeOptions: big }),
    ).not.toThrow();
    expect(() => parseDto(ExtractRequestDto, { url: urls[0], type: 'scrape', scrapeOptions: big })).not.toThrow();
  });
});
