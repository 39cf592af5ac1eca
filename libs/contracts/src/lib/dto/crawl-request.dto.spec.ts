import { describe, expect, it } from '@jest/globals';
import { parseDto } from '../dto.parser.js';
import { TrawlError } from '../error-codes.constants.js';
import { CRAWL_LIMITS, CrawlRequestDto } from './crawl-request.dto.js';
import { MapRequestDto } from './map-request.dto.js';

function refusal(cls: new () => object, body: unknown): TrawlError {
  try {
    parseDto(cls, body);
  } catch (e) {
    return e as TrawlError;
  }
  throw new Error('accepted');
}

describe('CrawlRequestDto', () => {
  it('applies Firecrawl-like defaults, scrapeOptions included', () => {
    const dto = parseDto(CrawlRequestDto, { url: 'https://example.com/' });
    expect(dto).toMatchObject({
      limit: CRAWL_LIMITS.defaultLimit,
      maxDepth: CRAWL_LIMITS.defaultMaxDepth,
      sitemap: 'include',
      allowSubdomains: false,
      allowExternalLinks: false,
      ignoreQueryParameters: false,
      maxConcurrency: CRAWL_LIMITS.defaultMaxConcurrency,
      delay: 0,
      includePaths: [],
      excludePaths: [],
      scrapeOptions: { formats: ['markdown'], timeout: 25000 },
    });
    expect(
      parseDto(CrawlRequestDto, { url: 'https://e.com/', scrapeOptions: { engine: 'http' } }).scrapeOptions,
    ).toMatchObject({ engine: 'http', formats: ['markdown'] });
  });

  it('refuses a pattern that is no regular expression, naming it', () => {
    const e = refusal(CrawlRequestDto, { url: 'https://e.com/', includePaths: ['(unclosed'] });
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.field).toBe('includePaths');
  });

  it('refuses unknown fields, also inside scrapeOptions, and out-of-range bounds', () => {
    expect(refusal(CrawlRequestDto, { url: 'https://e.com/', crawlEverything: true }).field).toBe('crawlEverything');
    expect(refusal(CrawlRequestDto, { url: 'https://e.com/', scrapeOptions: { maxAge: 1000 } }).field).toBe(
      'scrapeOptions.maxAge',
    );
    expect(refusal(CrawlRequestDto, { url: 'https://e.com/', limit: 0 }).field).toBe('limit');
    expect(refusal(CrawlRequestDto, { url: 'https://e.com/', maxConcurrency: 1000 }).field).toBe('maxConcurrency');
    expect(refusal(CrawlRequestDto, { url: 'https://e.com/', sitemap: 'maybe' }).field).toBe('sitemap');
    expect(refusal(CrawlRequestDto, { url: 'ftp://e.com/' }).field).toBe('url');
  });
});

describe('CrawlScrapeOptionsDto: POST /scrape’s page options on every page of a crawl (ADR 0039)', () => {
  const crawl = (scrapeOptions: Record<string, unknown>) => ({ url: 'https://e.com/', scrapeOptions });

  it('takes actions, blockAds, headersEverywhere and a screenshot format beside the content formats', () => {
    const scrapeOptions = {
      formats: ['markdown', 'links', { type: 'screenshot', fullPage: true, quality: 60 }],
      actions: [{ type: 'wait', milliseconds: 10 }, { type: 'scrape' }],
      blockAds: false,
      headersEverywhere: true,
    };
    expect(parseDto(CrawlRequestDto, crawl(scrapeOptions)).scrapeOptions).toMatchObject(scrapeOptions);
    expect(parseDto(CrawlRequestDto, crawl({ formats: ['screenshot@fullPage'] })).scrapeOptions.formats).toEqual([
      'screenshot@fullPage',
    ]);
  });

  it('refuses the LLM formats, two screenshots, and browser options or a screenshot on the http engine', () => {
    for (const formats of [
      ['summary'],
      [{ type: 'json', prompt: 'x' }],
      ['json'],
      ['screenshot', 'screenshot@fullPage'],
    ])
      expect(refusal(CrawlRequestDto, crawl({ formats })).field).toBe('scrapeOptions.formats');
    expect(refusal(CrawlRequestDto, crawl({ engine: 'http', formats: ['screenshot'] })).message).toMatch(
      /screenshot needs the browser engine/,
    );
    expect(refusal(CrawlRequestDto, crawl({ engine: 'http', actions: [{ type: 'scrape' }] })).message).toMatch(
      /actions need the browser engine/,
    );
    expect(refusal(CrawlRequestDto, crawl({ actions: [{ type: 'hover' }] })).field).toBe('scrapeOptions.actions');
    expect(refusal(CrawlRequestDto, crawl({ blockAds: 'no' })).field).toBe('scrapeOptions.blockAds');
    expect(refusal(CrawlRequestDto, crawl({ headers: { Host: 'x.test' } })).field).toBe('scrapeOptions.headers');
  });
});

describe('MapRequestDto', () => {
  it('has defaults and bounds', () => {
    expect(parseDto(MapRequestDto, { url: 'https://e.com/' })).toMatchObject({
      limit: CRAWL_LIMITS.defaultMapLimit,
      sitemap: 'include',
      includeSubdomains: false,
    });
    expect(refusal(MapRequestDto, { url: 'https://e.com/', limit: CRAWL_LIMITS.maxMapLimit + 1 }).field).toBe('limit');
  });
});
