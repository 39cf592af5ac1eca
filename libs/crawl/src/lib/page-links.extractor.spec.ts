import { describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { extractPageLinks } from './page-links.extractor.js';
import { robotsRules } from './robots-rules.policy.js';
import { readSitemaps } from './site-discovery.reader.js';
import { parseSitemap } from './sitemap.parser.js';

describe('extractPageLinks', () => {
  it('resolves links against <base>, drops fragments and nofollow links, reads canonical and title', () => {
    const html = `<html><head><title> A  page </title><base href="http://h/dir/">
      <link rel="canonical" href="/p#x"></head><body>
      <a href="a#1">a</a><a href="a#2">a again</a><a href="/b" rel="nofollow">b</a>
      <a href="mailto:x@y.z">mail</a><a href="http://other/c">c</a></body></html>`;
    expect(extractPageLinks(html, 'http://h/page')).toEqual({
      links: ['http://h/dir/a', 'http://other/c'],
      canonical: 'http://h/p',
      title: 'A page',
      nofollow: false,
    });
  });

  it('sees <meta name="robots" content="nofollow">', () => {
    expect(extractPageLinks('<meta name="robots" content="noindex, nofollow">', 'http://h/').nofollow).toBe(true);
  });
});

describe('sitemaps', () => {
  it('reads an index and a urlset, namespaced or not', () => {
    expect(
      parseSitemap('<?xml version="1.0"?><sitemapindex><sitemap><loc> http://h/a.xml </loc></sitemap></sitemapindex>'),
    ).toEqual({ urls: [], sitemaps: ['http://h/a.xml'] });
    expect(
      parseSitemap(
        '<?xml version="1.0"?><s:urlset xmlns:s="x"><s:url><s:loc>http://h/1?a=1&amp;b=2</s:loc></s:url></s:urlset>',
      ),
    ).toEqual({ urls: ['http://h/1?a=1&b=2'], sitemaps: [] });
  });

  it('follows robots.txt sitemaps and indexes, gunzips, stays on the host and within bounds', async () => {
    const files: Record<string, Buffer | string> = {
      'http://h/index.xml':
        '<sitemapindex><sitemap><loc>http://h/a.xml.gz</loc></sitemap><sitemap><loc>http://evil/x.xml</loc></sitemap></sitemapindex>',
      'http://h/a.xml.gz': gzipSync(
        '<urlset><url><loc>http://h/1</loc></url><url><loc>http://h/2#f</loc></url></urlset>',
      ),
      'http://h/sitemap.xml': '<urlset><url><loc>http://h/3</loc></url></urlset>',
    };
    const fetched: string[] = [];
    const fetch = async (url: string) => {
      fetched.push(url);
      const body = files[url];
      const buf = body === undefined ? Buffer.from('') : Buffer.isBuffer(body) ? body : Buffer.from(body);
      return {
        status: body === undefined ? 404 : 200,
        url,
        headers: {},
        body: buf,
        redirects: [],
        text: () => buf.toString(),
      };
    };
    const urls = await readSitemaps(fetch, 'http://h/', ['http://h/index.xml']);
    expect(urls).toEqual(['http://h/3', 'http://h/1', 'http://h/2']);
    expect(fetched).not.toContain('http://evil/x.xml');
    const bounded = await readSitemaps(fetch, 'http://h/', ['http://h/index.xml'], {
      maxFiles: 1,
      maxUrls: 10,
      maxDepth: 3,
      maxBytes: 1000,
    });
    expect(bounded).toEqual([]);
  });
});

describe('robotsRules', () => {
  const text =
    'User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nSitemap: http://h/s.xml\n\nUser-agent: Trawl\nDisallow: /no-trawl/\n';

  it('obeys the group of the crawl’s agent, its Crawl-delay and sitemaps', () => {
    const star = robotsRules('http://h/robots.txt', { status: 'ok', text }, 'SomeBot');
    expect(star.allowed('http://h/private/a')).toBe(false);
    expect(star.allowed('http://h/ok')).toBe(true);
    expect(star.crawlDelayMs).toBe(2000);
    expect(star.sitemaps).toEqual(['http://h/s.xml']);
    const trawl = robotsRules('http://h/robots.txt', { status: 'ok', text }, 'Trawl');
    expect(trawl.allowed('http://h/no-trawl/a')).toBe(false);
    expect(trawl.allowed('http://h/private/a')).toBe(true);
  });

  it('allows everything without a robots.txt (4xx) and nothing when it is unreachable (5xx)', () => {
    expect(robotsRules('http://h/robots.txt', { status: 'none' }, 'Trawl').allowed('http://h/a')).toBe(true);
    expect(robotsRules('http://h/robots.txt', { status: 'unreachable' }, 'Trawl').allowed('http://h/a')).toBe(false);
  });
});
