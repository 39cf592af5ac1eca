import { describe, expect, it } from '@jest/globals';
import {
  ERROR_CODES,
  parseDto,
  TASK_STATUSES,
  TrawlError,
  UrlBatchRequestDto,
  type ScrapeResult,
} from '@trawl/contracts';
import { toErrorEnvelope } from '../../envelope/error-envelope.mapper.js';
import { ERRORS, FORMATS, PAGE_STATES, SCRAPE_OPTIONS } from './firecrawl.constants.js';
import { toNativeBatch } from './firecrawl-batch.mapper.js';
import { toFirecrawlError } from './firecrawl-error.mapper.js';
import { fromNativeScrape, toNativeScrape } from './firecrawl-scrape.mapper.js';
import { fromNativeSearch, toNativeSearch } from './firecrawl-search.mapper.js';

const result: ScrapeResult = {
  sourceURL: 'https://a.test/',
  taskId: 't1',
  edgeId: 'e',
  status: 200,
  rawStatus: 201,
  markdown: '# A',
  html: Buffer.from(encodeURIComponent('<p>é</p>')).toString('base64'),
  metadata: { title: 'A', url: 'https://a.test/final', engine: 'browser', contentType: 'text/html' },
};

describe('Firecrawl translation tables', () => {
  it('maps markdown and html onto the native formats, and answers html decoded', () => {
    const mapping = toNativeScrape({ formats: ['html', 'markdown'] });
    expect(mapping.native.formats).toEqual(['html', 'markdown']);
    expect(mapping.warnings).toEqual([]);
    expect(fromNativeScrape(result, mapping)).toMatchObject({ html: '<p>é</p>', markdown: '# A' });
  });

  it('defaults to markdown, and still reads the page as markdown when no asked format maps', () => {
    expect(toNativeScrape({}).native.formats).toEqual(['markdown']);
    const onlyBranding = toNativeScrape({ formats: ['branding'] });
    expect(onlyBranding.native.formats).toEqual(['markdown']);
    expect(onlyBranding.warnings).toEqual(['format branding: Trawl does not read branding; ignored']);
    expect(fromNativeScrape(result, onlyBranding).markdown).toBeUndefined();
  });

  it('names every pending and unsupported format in a warning, and an unknown one too', () => {
    for (const [name, rule] of Object.entries(FORMATS)) {
      if (rule.kind === 'mapped') continue;
      const mapping = toNativeScrape({ formats: [name] });
      expect(mapping.warnings.join()).toContain(`format ${name}`);
    }
    expect(toNativeScrape({ formats: ['hologram'] }).warnings).toEqual([
      'format hologram is not a format Trawl knows; ignored',
    ]);
  });

  it('copies mapped options, warns on pending ones, on unsupported ones only when they ask, drops inert ones', () => {
    const mapping = toNativeScrape({
      headers: { a: 'b' },
      waitFor: 10,
      includeTags: ['main'],
      skipTlsVerification: false,
      blockAds: false,
      zeroDataRetention: true,
      origin: 'js-sdk@4.42.0',
      integration: 'n8n',
      somethingNew: 1,
    });
    expect(mapping.native).toEqual({
      formats: ['markdown'],
      headers: { a: 'b' },
      waitFor: 10,
      includeTags: ['main'],
      blockAds: false,
    });
    expect(mapping.warnings).toEqual([
      'zeroDataRetention: Trawl keeps results for its cache and task lookup; ignored',
      'somethingNew is not an option Trawl knows; ignored',
    ]);
  });

  it('copies every mapped option onto the native field its entry names', () => {
    for (const [name, rule] of Object.entries(SCRAPE_OPTIONS)) {
      if (rule.kind !== 'mapped' || ['timeout', 'waitFor', 'maxAge'].includes(name)) continue;
      expect(toNativeScrape({ [name]: true }).native[rule.native]).toBe(true);
    }
  });

  it('passes a screenshot entry as given (its options kept), and answers rawHtml, links, screenshot and actions', () => {
    const mapping = toNativeScrape({
      formats: ['rawHtml', 'links', { type: 'screenshot', fullPage: true, quality: 80 }],
    });
    expect(mapping.native.formats).toEqual(['rawHtml', 'links', { type: 'screenshot', fullPage: true, quality: 80 }]);
    expect(mapping.warnings).toEqual([]);
    const doc = fromNativeScrape(
      {
        ...result,
        rawHtml: '<p>raw</p>',
        links: ['https://a.test/x'],
        screenshot: 'data:image/jpeg;base64,AA',
        actions: { screenshots: [], scrapes: [], javascriptReturns: [] },
      } as ScrapeResult,
      mapping,
    );
    expect(doc).toMatchObject({
      rawHtml: '<p>raw</p>',
      links: ['https://a.test/x'],
      screenshot: 'data:image/jpeg;base64,AA',
      actions: { screenshots: [], scrapes: [], javascriptReturns: [] },
    });
  });

  it('maps v2 json and summary onto the native LLM formats and answers json and summary (ADR 0029)', () => {
    const schema = { type: 'object', properties: { price: { type: 'number' } } };
    const mapping = toNativeScrape({ formats: [{ type: 'json', schema, prompt: 'the price' }, 'summary'] });
    expect(mapping.native.formats).toEqual([{ type: 'json', schema, prompt: 'the price' }, 'summary']);
    expect(mapping.warnings).toEqual([]);
    const doc = fromNativeScrape({ ...result, json: { price: 3 }, summary: 'A page.' }, mapping);
    expect(doc).toMatchObject({ json: { price: 3 }, summary: 'A page.' });
    expect(doc.markdown).toBeUndefined();
    expect(toNativeScrape({ formats: [{ type: 'summary' }] }).native.formats).toEqual(['summary']);
  });

  it('maps v1 json with jsonOptions and extract with extract onto one native json entry, answered by name', () => {
    const schema = { type: 'object' };
    const v1 = toNativeScrape({ formats: ['json'], jsonOptions: { schema, prompt: 'p', systemPrompt: 'be nice' } });
    expect(v1.native).toEqual({ formats: [{ type: 'json', schema, prompt: 'p' }] });
    expect(v1.warnings).toEqual(['jsonOptions.systemPrompt: Trawl uses its own system prompt; ignored']);
    expect(fromNativeScrape({ ...result, json: { a: 1 } }, v1).json).toEqual({ a: 1 });

    const both = toNativeScrape({ formats: ['extract', 'json', 'markdown'], extract: { prompt: 'q' } });
    expect(both.native.formats).toEqual([{ type: 'json', prompt: 'q' }, 'markdown']);
    expect(fromNativeScrape({ ...result, json: { a: 1 } }, both)).toMatchObject({ extract: { a: 1 }, json: { a: 1 } });

    expect(() => toNativeScrape({ formats: ['json'] })).toThrow('formats: json needs a schema or a prompt');
    // Without the format, the options ask for nothing (as Firecrawl).
    expect(toNativeScrape({ jsonOptions: { prompt: 'p' } }).warnings).toEqual([]);
  });

  it("clamps timeout, waitFor and maxAge to Trawl's bounds and says so", () => {
    const mapping = toNativeScrape({ timeout: 100, waitFor: 90_000, maxAge: 172_800_000 });
    expect(mapping.native).toMatchObject({ timeout: 500, waitFor: 60_000, maxAge: 86_400_000 });
    expect(mapping.warnings).toHaveLength(3);
  });

  it('answers Firecrawl metadata: title, sourceURL, url, statusCode from the native result', () => {
    expect(fromNativeScrape(result, toNativeScrape({})).metadata).toEqual({
      title: 'A',
      sourceURL: 'https://a.test/',
      url: 'https://a.test/final',
      statusCode: 201,
      contentType: 'text/html',
      scrapeId: 't1',
    });
  });

  it('maps search: query to q, limit to num (Firecrawl default 5), country, location, tbs, lang', () => {
    expect(toNativeSearch({ query: 'x' }).native).toEqual({ q: 'x', num: 5 });
    const m = toNativeSearch({ query: 'x', limit: 500, country: 'us', location: 'Paris', tbs: 'qdr:d', lang: 'fr' });
    expect(m.native).toEqual({ q: 'x', num: 100, gl: 'us', location: 'Paris', tbs: 'qdr:d', hl: 'fr' });
    expect(m.limit).toBe(100);
    expect(m.warnings).toEqual(["limit 500 is outside Trawl's range 1-100; 100 was used"]);
    expect(toNativeSearch({ query: 'x', scrapeOptions: { formats: [] } }).scrapeOptions).toBeNull();
    expect(toNativeSearch({ query: 'x', scrapeOptions: {} }).scrapeOptions).toEqual({});
    expect(() => toNativeSearch({ query: ' ' })).toThrow(TrawlError);
  });

  it('answers search results with 1-based positions, at most limit', () => {
    const item = { link: 'https://r/', title: 'T', snippet: 'S' };
    const web = fromNativeSearch({ results: [item, item, item] } as never, 2);
    expect(web).toEqual([
      { url: 'https://r/', title: 'T', description: 'S', position: 1 },
      { url: 'https://r/', title: 'T', description: 'S', position: 2 },
    ]);
  });

  it('gives every native error code a Firecrawl status (never 502, which the SDK retries) and a code', () => {
    for (const code of ERROR_CODES) {
      expect(ERRORS[code].status).not.toBe(502);
      const answer = toFirecrawlError(toErrorEnvelope(new TrawlError(code, `msg ${code}`), 'r'));
      expect(answer.body).toMatchObject({ success: false, error: `msg ${code}`, code: ERRORS[code].code });
      expect(typeof answer.body.error).toBe('string');
    }
  });

  it('gives every native task state a Firecrawl page state', () => {
    for (const s of TASK_STATUSES) expect(['scraping', 'completed', 'failed']).toContain(PAGE_STATES[s]);
  });

  it("maps a batch's formats and every page option of /scrape onto the native URL batch (ADR 0039)", () => {
    const m = toNativeBatch(
      {
        urls: ['https://a.test/1', 'nope'],
        formats: ['markdown', 'rawHtml', 'links', { type: 'screenshot', fullPage: true }],
        mobile: true,
        location: { country: 'DE' },
        actions: [{ type: 'wait', milliseconds: 10 }],
        timeout: 5000,
        onlyMainContent: false,
        includeTags: ['main'],
        excludeTags: ['.ad'],
        waitFor: 100,
        headers: { 'X-Probe': 'b' },
        blockAds: false,
        maxAge: 172_800_000,
        storeInCache: false,
      },
      true,
    );
    expect(m.urls).toEqual(['https://a.test/1']);
    expect(m.invalidURLs).toEqual(['nope']);
    expect(m.native).toEqual({
      type: 'scrape',
      timeout: 5000,
      scrapeOptions: {
        formats: ['markdown', 'rawHtml', 'links', { type: 'screenshot', fullPage: true }],
        mobile: true,
        location: { country: 'DE' },
        actions: [{ type: 'wait', milliseconds: 10 }],
        onlyMainContent: false,
        includeTags: ['main'],
        excludeTags: ['.ad'],
        waitFor: 100,
        headers: { 'X-Probe': 'b' },
        blockAds: false,
      },
    });
    expect(m.formats).toEqual(['markdown', 'rawHtml', 'links', 'screenshot@fullPage']);
    // maxAge is met by a fresh scrape, storeInCache: false by storing nothing: no warning at all.
    expect(m.warnings).toEqual([]);
    // The native batch takes the mapped options as they are.
    expect(parseDto(UrlBatchRequestDto, { ...m.native, urls: m.urls }).scrapeOptions).toEqual(m.native.scrapeOptions);
    // Options nested in scrapeOptions (as a crawl's) are read too, the top level winning.
    const nested = toNativeBatch(
      {
        urls: ['https://a.test/'],
        onlyMainContent: true,
        scrapeOptions: { formats: ['html'], onlyMainContent: false },
      },
      true,
    );
    expect(nested.formats).toEqual(['html']);
    expect(nested.native.scrapeOptions).toEqual({ formats: ['html'], onlyMainContent: true });
  });

  it("names in the warnings only what a batch's pages cannot do: storeInCache true, unsupported options", () => {
    const m = toNativeBatch(
      { urls: ['https://a.test/'], storeInCache: true, skipTlsVerification: true, maxConcurrency: 2 },
      true,
    );
    const w = m.warnings.join('\n');
    expect(w).toContain('storeInCache');
    expect(w).toContain('skipTlsVerification');
    expect(w).toContain('maxConcurrency');
    expect(w).not.toContain('cannot be set for a batch');
    expect(m.native.scrapeOptions).toEqual({ formats: ['markdown'] });
  });

  it("maps a batch's webhook (a URL or the object form) onto batch events in Firecrawl's form, no warning", () => {
    const plain = toNativeBatch({ urls: ['https://a.test/'], webhook: 'https://hook.test/a' }, true);
    expect(plain.webhook).toBe('https://hook.test/a');
    expect(plain.webhookOptions).toEqual({ format: 'firecrawl' });
    expect(plain.warnings).toEqual([]);
    const full = toNativeBatch(
      {
        urls: ['https://a.test/'],
        webhook: { url: 'https://hook.test/b', headers: { 'x-t': '1' }, metadata: { run: 7 }, events: ['page'] },
      },
      true,
    );
    expect(full.webhookOptions).toEqual({
      format: 'firecrawl',
      headers: { 'x-t': '1' },
      metadata: { run: 7 },
      events: ['page'],
    });
    expect(full.warnings).toEqual([]);
    const batchId = '6b1f3a2e-6d1c-4c55-9a3e-2f0d8c1b7e90';
    const native = { ...full.native, urls: full.urls, webhook: full.webhook };
    expect(
      parseDto(UrlBatchRequestDto, { ...native, webhookOptions: { ...full.webhookOptions, batchId } }),
    ).toMatchObject({ webhookOptions: { batchId, format: 'firecrawl', events: ['page'] } });
    // The native batch refuses options without the batch's id, or events Firecrawl does not name.
    expect(() => parseDto(UrlBatchRequestDto, { ...native, webhookOptions: full.webhookOptions })).toThrow();
    expect(() => parseDto(UrlBatchRequestDto, { ...native, webhookOptions: { batchId, events: ['x'] } })).toThrow();
    expect(() => toNativeBatch({ urls: ['https://a.test/'], webhook: 42 }, true)).toThrow('webhook');
  });
});
