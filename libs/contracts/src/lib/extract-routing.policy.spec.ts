import { describe, expect, it } from '@jest/globals';
import { EXTRACT_TYPES } from './extract-type.constants.js';
import { EXTRACT_SCRAPE_FORMATS, EXTRACT_SUBJECT_BY_TYPE, extractUrlCall } from './extract-routing.policy.js';
import { SUBJECTS } from './subjects.constants.js';
import type { ScrapeOptions } from './dto/scrape-options.dto.js';
import type { ScrapeFormatOption } from './dto/scrape-request.dto.js';

describe('extractUrlCall: the one type → subject map', () => {
  const fields = { url: 'https://a.test/?hl=en', timeout: 9000, params: { hl: 'en' } };

  it('sends each type to the subject of its extractor', () => {
    expect(EXTRACT_SUBJECT_BY_TYPE).toEqual({
      retail: SUBJECTS.extractRetail,
      'mp-maps': SUBJECTS.extractPlace,
      'mp-search': SUBJECTS.extractMapsSearchUrl,
      scrape: SUBJECTS.scrapePage,
    });
    for (const type of EXTRACT_TYPES) expect(extractUrlCall(type, fields).subject).toBe(EXTRACT_SUBJECT_BY_TYPE[type]);
  });

  it('gives an upstream extractor the URL, timeout, params, meta and engine, and only those given', () => {
    expect(extractUrlCall('retail', fields).payload).toEqual(fields);
    expect(extractUrlCall('mp-maps', { ...fields, meta: true, engine: 'browser' }).payload).toEqual({
      ...fields,
      meta: true,
      engine: 'browser',
    });
    expect(extractUrlCall('mp-search', { url: 'https://b.test/', timeout: 1000, meta: false }).payload).toEqual({
      url: 'https://b.test/',
      timeout: 1000,
    });
  });

  it('asks extractor-scrape for markdown and HTML unless told, with the engine of the request, else the default', () => {
    expect(EXTRACT_SCRAPE_FORMATS).toEqual(['markdown', 'html']);
    expect(extractUrlCall('scrape', { ...fields, meta: true }).payload).toEqual({
      url: fields.url,
      formats: ['markdown', 'html'],
      timeout: 9000,
    });
    const configured = { formats: ['markdown'] as const, engine: 'http' as const };
    expect(extractUrlCall('scrape', fields, configured).payload).toEqual({
      url: fields.url,
      formats: ['markdown'],
      timeout: 9000,
      engine: 'http',
    });
    expect(extractUrlCall('scrape', { ...fields, engine: 'browser' }, configured).payload).toMatchObject({
      engine: 'browser',
    });
  });

  it("gives extractor-scrape a scrape's formats and browser options (scrapeOptions, ADR 0019), and no other extractor", () => {
    const scrapeOptions = {
      formats: ['markdown', 'screenshot@fullPage'] as ScrapeFormatOption[],
      actions: [{ type: 'click' as const, selector: '#more' }],
      location: { country: 'DE' },
      mobile: true,
    };
    const url = { url: 'https://a.test/', timeout: 1000, scrapeOptions };
    expect(extractUrlCall('scrape', url).payload).toEqual({
      url: 'https://a.test/',
      timeout: 1000,
      formats: ['markdown', 'screenshot@fullPage'],
      actions: [{ type: 'click', selector: '#more' }],
      location: { country: 'DE' },
      mobile: true,
    });
    expect(extractUrlCall('scrape', { ...url, scrapeOptions: { mobile: false } }).payload).toMatchObject({
      formats: [...EXTRACT_SCRAPE_FORMATS],
      mobile: false,
    });
    expect(extractUrlCall('retail', url).payload).toEqual({ url: 'https://a.test/', timeout: 1000 });
  });

  it('gives extractor-scrape blockAds false when scrapeOptions says so, and leaves the default to it otherwise', () => {
    const fields = { url: 'https://a.test/', timeout: 1000 };
    expect(extractUrlCall('scrape', { ...fields, scrapeOptions: { blockAds: false } }).payload).toMatchObject({
      blockAds: false,
    });
    expect(extractUrlCall('scrape', fields).payload).not.toHaveProperty('blockAds');
    expect(extractUrlCall('retail', { ...fields, scrapeOptions: { blockAds: false } }).payload).not.toHaveProperty(
      'blockAds',
    );
  });

  it('sends a task with browser options to the browser although the configured engine is http (ADR 0039)', () => {
    const configured = { formats: ['markdown'] as const, engine: 'http' as const };
    const fields = { url: 'https://a.test/', timeout: 1000 };
    for (const scrapeOptions of [
      { formats: ['markdown', 'screenshot'] as ScrapeFormatOption[] },
      { formats: [{ type: 'screenshot' as const, fullPage: true }] },
      { actions: [{ type: 'scrape' as const }] },
      { location: { country: 'DE' } },
      { mobile: true },
    ])
      expect(extractUrlCall('scrape', { ...fields, scrapeOptions }, configured).payload).toMatchObject({
        engine: 'browser',
      });
    for (const scrapeOptions of [{ mobile: false }, { actions: [] }, { onlyMainContent: false, headers: { a: 'b' } }])
      expect(extractUrlCall('scrape', { ...fields, scrapeOptions }, configured).payload).toMatchObject({
        engine: 'http',
      });
  });

  it('gives extractor-scrape every page option of POST /scrape the task carries, and nothing else (ADR 0039)', () => {
    const options = {
      onlyMainContent: false,
      includeTags: ['article'],
      excludeTags: ['.ad'],
      waitFor: 250,
      headers: { 'X-Probe': 'p1' },
      headersEverywhere: true,
      blockAds: false,
    };
    const fields = { url: 'https://a.test/', timeout: 1000 };
    const stray = { ...options, maxAge: 5000, url: 'https://other.test/' } as ScrapeOptions;
    expect(extractUrlCall('scrape', { ...fields, scrapeOptions: stray }).payload).toEqual({
      url: 'https://a.test/',
      timeout: 1000,
      formats: [...EXTRACT_SCRAPE_FORMATS],
      ...options,
    });
    expect(extractUrlCall('scrape', { ...fields, scrapeOptions: { onlyMainContent: undefined } }).payload).toEqual({
      url: 'https://a.test/',
      timeout: 1000,
      formats: [...EXTRACT_SCRAPE_FORMATS],
    });
  });

  it("gives extractor-scrape the platform's tenant, and no other extractor", () => {
    const fields = { url: 'https://a.test/', timeout: 5000, tenant: 'key-1' };
    expect(extractUrlCall('scrape', fields).payload).toMatchObject({ tenant: 'key-1' });
    expect(extractUrlCall('scrape', { ...fields, tenant: undefined }).payload).not.toHaveProperty('tenant');
    expect(extractUrlCall('retail', fields).payload).not.toHaveProperty('tenant');
  });
});
