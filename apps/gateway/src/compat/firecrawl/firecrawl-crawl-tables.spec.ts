import { describe, expect, it } from '@jest/globals';
import {
  CRAWL_STATUSES,
  CrawlRequestDto,
  MapRequestDto,
  parseDto,
  type CrawlDocument,
  type CrawlStatusReply,
} from '@trawl/contracts';
import { CRAWL_OPTIONS, CRAWL_STATES, MAP_OPTIONS } from './firecrawl.constants.js';
import { withPlan } from '../crawl-plan.policy.js';
import {
  crawlerOptionsOf,
  crawlPageRefOf,
  firecrawlPlanOptionsOf,
  crawlStatusAnswer,
  crawlStatusOf,
  mapLinksOf,
  pathScopedIncludes,
  fromCrawlDocument,
  toNativeCrawl,
  toNativeMap,
} from './firecrawl-crawl.mapper.js';

const html = Buffer.from(encodeURIComponent('<p>é</p>')).toString('base64');

function reply(over: Partial<CrawlStatusReply>): CrawlStatusReply {
  return { id: 'a'.repeat(32), status: 'scraping', total: 3, completed: 1, documents: 1, data: [], cursor: 5, ...over };
}

const doc: CrawlDocument = {
  sourceURL: 'https://a.test/x?final',
  taskId: 't',
  edgeId: 'e',
  status: 200,
  rawStatus: 200,
  markdown: '# X',
  html,
  metadata: {
    title: 'X',
    url: 'https://a.test/x',
    engine: 'http' as const,
    contentType: 'text/html',
    sourceURL: 'https://a.test/x',
    statusCode: 200,
  },
};

describe('Firecrawl crawl and map tables', () => {
  it('maps v2 crawl options onto the native crawl, which its DTO accepts', () => {
    const m = toNativeCrawl({
      url: 'https://a.test/',
      limit: 20,
      maxDiscoveryDepth: 2,
      includePaths: ['^/docs'],
      excludePaths: ['/private'],
      allowExternalLinks: false,
      allowSubdomains: true,
      sitemap: 'skip',
      crawlEntireDomain: true,
      ignoreQueryParameters: true,
      delay: 1.5,
      maxConcurrency: 3,
      scrapeOptions: {
        formats: ['markdown', 'html'],
        headers: { a: 'b' },
        waitFor: 100,
        timeout: 5000,
        onlyMainContent: false,
        includeTags: ['main'],
        excludeTags: ['.ad'],
        location: { country: 'DE' },
        mobile: true,
      },
      origin: 'js-sdk@4.42.0',
    });
    expect(m.warnings).toEqual([]);
    expect(m.native).toEqual({
      url: 'https://a.test/',
      limit: 20,
      maxDepth: 2,
      includePaths: ['^/docs'],
      excludePaths: ['/private'],
      allowExternalLinks: false,
      allowSubdomains: true,
      sitemap: 'skip',
      ignoreQueryParameters: true,
      delay: 1500,
      maxConcurrency: 3,
      scrapeOptions: {
        formats: ['markdown', 'html'],
        headers: { a: 'b' },
        waitFor: 100,
        timeout: 5000,
        onlyMainContent: false,
        includeTags: ['main'],
        excludeTags: ['.ad'],
        location: { country: 'DE' },
        mobile: true,
      },
    });
    expect(() => parseDto(CrawlRequestDto, m.native)).not.toThrow();
  });

  it('maps v1 names: maxDepth, ignoreSitemap, allowBackwardLinks', () => {
    const m = toNativeCrawl({ url: 'https://a.test/blog', maxDepth: 1, ignoreSitemap: true, allowBackwardLinks: true });
    expect(m.native).toMatchObject({ maxDepth: 1, sitemap: 'skip' });
    expect(m.native.includePaths).toBeUndefined();
    expect(m.native.crawlEntireDomain).toBeUndefined();
  });

  it("keeps Firecrawl's default scope: paths under the start URL's path, unless crawlEntireDomain", () => {
    expect(toNativeCrawl({ url: 'https://a.test/blog' }).native.includePaths).toEqual(['^/blog']);
    expect(toNativeCrawl({ url: 'https://a.test/' }).native.includePaths).toBeUndefined();
    expect(toNativeCrawl({ url: 'https://a.test/blog', crawlEntireDomain: true }).native.includePaths).toBeUndefined();
    const [scoped] = pathScopedIncludes('https://a.test/blog', ['post-\\d+$']);
    const re = new RegExp(scoped as string);
    expect(re.test('/blog/post-1')).toBe(true);
    expect(re.test('/news/post-1')).toBe(false);
    expect(re.test('/blog/about')).toBe(false);
    const [anchored] = pathScopedIncludes('https://a.test/a.b', ['^/a\\.b/x']);
    expect(new RegExp(anchored as string).test('/a.b/x')).toBe(true);
    expect(new RegExp(anchored as string).test('/aXb/x')).toBe(false);
  });

  it('names what a crawl cannot honour, and clamps numbers beyond its bounds', () => {
    const m = toNativeCrawl({
      url: 'https://a.test/',
      limit: 10_000_000,
      deduplicateSimilarURLs: false,
      regexOnFullURL: true,
      ignoreRobotsTxt: true,
      somethingNew: 1,
      scrapeOptions: {
        formats: ['markdown', 'summary', { type: 'json', prompt: 'x' }],
        onlyMainContent: false,
        storeInCache: true,
        skipTlsVerification: true,
      },
      webhook: { url: 'https://hook.test/', events: ['completed'] },
    });
    const w = m.warnings.join('\n');
    for (const name of [
      'deduplicateSimilarURLs',
      'regexOnFullURL',
      'ignoreRobotsTxt',
      'somethingNew',
      'format summary',
      'format json',
      'scrapeOptions.storeInCache',
      'scrapeOptions.skipTlsVerification',
      'limit 10000000',
    ]) {
      expect(w).toContain(name);
    }
    expect(m.native.limit).toBe(100_000);
    expect(m.native.webhook).toBe('https://hook.test/');
    expect(m.native.webhookOptions).toEqual({ format: 'firecrawl', events: ['completed'] });
    expect(m.native.scrapeOptions).toEqual({ formats: ['markdown'], onlyMainContent: false });
  });

  it("carries actions, blockAds and a screenshot to a crawl's pages; maxAge is met by fresh pages (ADR 0039)", () => {
    const scrapeOptions = {
      formats: ['markdown', { type: 'screenshot', fullPage: true, quality: 70 }, 'links'],
      actions: [{ type: 'click', selector: '#more' }],
      blockAds: false,
      maxAge: 172_800_000,
      storeInCache: false,
      headers: { 'X-Probe': 'p1' },
      excludeTags: ['nav'],
    };
    const m = toNativeCrawl({ url: 'https://a.test/', scrapeOptions });
    expect(m.warnings).toEqual([]);
    expect(m.native.scrapeOptions).toEqual({
      formats: ['markdown', { type: 'screenshot', fullPage: true, quality: 70 }, 'links'],
      actions: [{ type: 'click', selector: '#more' }],
      blockAds: false,
      headers: { 'X-Probe': 'p1' },
      excludeTags: ['nav'],
    });
    expect(() => parseDto(CrawlRequestDto, m.native)).not.toThrow();
    // v1's spelling of a full-page screenshot.
    const v1 = toNativeCrawl({ url: 'https://a.test/', scrapeOptions: { formats: ['screenshot@fullPage'] } });
    expect(v1.native.scrapeOptions).toEqual({ formats: ['screenshot@fullPage'] });
    // A crawl document's screenshot and actions come back in Firecrawl's document.
    const doc = fromCrawlDocument({
      sourceURL: 'https://a.test/',
      taskId: 't',
      edgeId: 'e',
      status: 200,
      rawStatus: 200,
      markdown: '# A',
      screenshot: 'data:image/png;base64,AA==',
      actions: { screenshots: [], scrapes: [], javascriptReturns: [] },
      metadata: {
        title: 'A',
        url: 'https://a.test/',
        engine: 'browser',
        contentType: null,
        sourceURL: 'https://a.test/',
        statusCode: 200,
      },
    });
    expect(doc).toMatchObject({
      markdown: '# A',
      screenshot: 'data:image/png;base64,AA==',
      actions: { screenshots: [] },
    });
  });

  it('every crawl and map option is a rule the mapper applies (no option silently dropped)', () => {
    for (const [name, rule] of Object.entries({ ...CRAWL_OPTIONS })) {
      const m = toNativeCrawl({ url: 'https://a.test/', crawlEntireDomain: true, [name]: 'x' });
      if (rule.kind === 'unsupported' && (rule.asks ?? (() => true))('x')) {
        expect(m.warnings.join()).toContain(name);
      }
    }
    for (const [name, rule] of Object.entries(MAP_OPTIONS)) {
      const m = toNativeMap({ url: 'https://a.test/', [name]: true });
      if (rule.kind === 'unsupported' && (rule.asks ?? (() => true))(true)) expect(m.warnings.join()).toContain(name);
    }
  });

  it("maps Firecrawl's webhook (a URL or the object form) onto the native webhook in Firecrawl's form", () => {
    const plain = toNativeCrawl({ url: 'https://a.test/', webhook: 'https://hook.test/a' });
    expect(plain.native).toMatchObject({ webhook: 'https://hook.test/a', webhookOptions: { format: 'firecrawl' } });
    expect(plain.warnings).toEqual([]);
    const full = toNativeCrawl({
      url: 'https://a.test/',
      webhook: { url: 'https://hook.test/b', headers: { 'x-t': '1' }, metadata: { run: 7 }, events: ['page'] },
    });
    expect(full.native.webhookOptions).toEqual({
      format: 'firecrawl',
      headers: { 'x-t': '1' },
      metadata: { run: 7 },
      events: ['page'],
    });
    expect(() => parseDto(CrawlRequestDto, full.native)).not.toThrow();
    expect(() => parseDto(CrawlRequestDto, { ...full.native, webhookOptions: { events: ['nope'] } })).toThrow();
    expect(() => toNativeCrawl({ url: 'https://a.test/', webhook: 42 })).toThrow('webhook');
  });

  it('maps v2 and v1 map options onto the native map, which its DTO accepts', () => {
    const v2 = toNativeMap({ url: 'https://a.test/', search: 'docs', sitemap: 'only', limit: 10, timeout: 5000 });
    expect(v2).toEqual({
      native: { url: 'https://a.test/', search: 'docs', sitemap: 'only', limit: 10, timeout: 5000 },
      warnings: [],
    });
    expect(() => parseDto(MapRequestDto, v2.native)).not.toThrow();
    expect(toNativeMap({ url: 'https://a.test/', ignoreSitemap: true }).native.sitemap).toBe('skip');
    expect(toNativeMap({ url: 'https://a.test/', sitemapOnly: true }).native.sitemap).toBe('only');
    expect(toNativeMap({ url: 'https://a.test/', sitemapOnly: false }).native.sitemap).toBeUndefined();
    expect(toNativeMap({ url: 'https://a.test/', location: { country: 'DE' } }).warnings.join()).toContain('location');
  });

  it('answers map links as v2 objects and v1 strings', () => {
    const links = [{ url: 'https://a.test/', title: 'A' }, { url: 'https://a.test/b' }];
    expect(mapLinksOf(links, 'v2')).toEqual([{ url: 'https://a.test/', title: 'A' }, { url: 'https://a.test/b' }]);
    expect(mapLinksOf(links, 'v1')).toEqual(['https://a.test/', 'https://a.test/b']);
  });

  it('every native crawl state has a Firecrawl state', () => {
    for (const s of CRAWL_STATUSES) expect(CRAWL_STATES[s]).toBe(s);
  });

  it('answers documents in Firecrawl form, html decoded, sourceURL the URL the crawl asked for', () => {
    const s = crawlStatusOf(reply({ data: [doc], documents: 1, completed: 3, status: 'completed', cursor: null }), {
      skip: 0,
    });
    expect(s).toMatchObject({ status: 'completed', completed: 3, total: 3, creditsUsed: 1 });
    expect(s.data[0]).toMatchObject({
      markdown: '# X',
      html: '<p>é</p>',
      metadata: { title: 'X', sourceURL: 'https://a.test/x', url: 'https://a.test/x', statusCode: 200 },
    });
    expect(s.next).toBeUndefined();
  });

  it('gives next only while more documents remain after the page', () => {
    // Running, all stored documents given: no next (the SDK would loop on empty pages otherwise).
    expect(crawlStatusOf(reply({ data: [doc], documents: 1 }), { skip: 0 }).next).toBeUndefined();
    expect(crawlStatusOf(reply({ data: [], documents: 0 }), { skip: 0 }).next).toBeUndefined();
    // Running, more stored than given: next carries the cursor and what was given.
    expect(crawlStatusOf(reply({ data: [doc], documents: 3 }), { skip: 1 }).next).toEqual({ cursor: 5, skip: 2 });
    // Ended with more stored after the page; ended with none.
    expect(crawlStatusOf(reply({ data: [doc], status: 'completed', cursor: 9 }), { skip: 0 }).next).toEqual({
      cursor: 9,
      skip: 1,
    });
    const answer = crawlStatusAnswer(
      { ...crawlStatusOf(reply({ data: [doc], status: 'completed', cursor: 9 }), { skip: 0 }) },
      'http://gw.test:8080/v2/crawl/abc',
    );
    expect(answer.next).toBe('http://gw.test:8080/v2/crawl/abc?cursor=9&skip=1');
    expect(answer.success).toBe(true);
  });

  it('reads cursor and skip of a status request', () => {
    expect(crawlPageRefOf({})).toEqual({ skip: 0, skipWithoutCursor: false });
    expect(crawlPageRefOf({ cursor: '9', skip: '4' })).toEqual({ cursor: 9, skip: 4, skipWithoutCursor: false });
    expect(crawlPageRefOf({ skip: '4' })).toEqual({ skip: 0, skipWithoutCursor: true });
    expect(() => crawlPageRefOf({ cursor: '0' })).toThrow('cursor');
  });

  it('a crawl plan in Firecrawl’s names fills what the body leaves out, and maps onto the native crawl', () => {
    const plan = { includePaths: ['^/blog/'], maxDepth: 2, delay: 1500, sitemap: 'skip' as const, limit: 40 };
    expect(firecrawlPlanOptionsOf(plan)).toEqual({
      includePaths: ['^/blog/'],
      maxDiscoveryDepth: 2,
      delay: 1.5,
      sitemap: 'skip',
      limit: 40,
    });
    // v1's names for the same options stand: the plan's are left out.
    const v1 = { url: 'https://a.test/', maxDepth: 1, ignoreSitemap: false };
    expect(firecrawlPlanOptionsOf(plan, v1)).toEqual({ includePaths: ['^/blog/'], delay: 1.5, limit: 40 });

    const body = { url: 'https://a.test/', prompt: 'the blog', limit: 5, scrapeOptions: { formats: ['html'] } };
    const merged = withPlan(body, firecrawlPlanOptionsOf(plan, body));
    expect(crawlerOptionsOf(merged)).toEqual({
      includePaths: ['^/blog/'],
      maxDiscoveryDepth: 2,
      delay: 1.5,
      sitemap: 'skip',
      limit: 5,
    });
    const m = toNativeCrawl(merged);
    expect(m.warnings).toEqual([]);
    const native = parseDto(CrawlRequestDto, m.native);
    expect(native).toMatchObject({
      includePaths: ['^/blog/'],
      maxDepth: 2,
      delay: 1500,
      sitemap: 'skip',
      limit: 5,
    });
    expect(native.prompt).toBeUndefined();
  });
});
