import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AD_BLOCK_CATEGORIES,
  AdBlocker,
  DEFAULT_FILTER_LISTS,
  extendedSyntaxOfUblock,
  parseTrackerDb,
  selectFilters,
} from './ad-blocker.service.js';

const PAGE = 'https://news.example.org/2026/11/story.html';

// The tracker database's own choices, pinned without the filter lists beside it (EasyList blocks some of these hosts
// whole, e.g. `||doubleclick.net^` for popups: see the next block for the default engine).
describe('AdBlocker over the installed tracker database', () => {
  const blocker = new AdBlocker({ filterLists: [] });
  beforeAll(() => blocker.ready());

  const blocks = (url: string, type = 'script', sourceUrl = PAGE) => blocker.blocks({ url, sourceUrl, type });

  it('blocks ad scripts of DoubleClick and Google syndication loaded by another site', () => {
    expect(blocks('https://securepubads.g.doubleclick.net/tag/js/gpt.js')).toBe(true);
    expect(blocks('https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js')).toBe(true);
    expect(blocks('https://ad.doubleclick.net/ddm/trackclk/N1234.5678', 'Image')).toBe(true);
  });

  it('blocks analytics beacons and the advertising gtag, by CDP and Playwright type names alike', () => {
    expect(blocks('https://www.google-analytics.com/g/collect?v=2&tid=G-1', 'Ping')).toBe(true);
    expect(blocks('https://www.google-analytics.com/analytics.js', 'Script')).toBe(true);
    expect(blocks('https://www.googletagmanager.com/gtag/js?id=G-ABC123')).toBe(true);
    expect(blocks('https://platform.twitter.com/oct.js')).toBe(true);
  });

  it('does not block the page’s own resources', () => {
    for (const [url, type] of [
      ['https://news.example.org/assets/app.js', 'script'],
      ['https://news.example.org/assets/site.css', 'stylesheet'],
      ['https://news.example.org/api/comments?id=1', 'fetch'],
      ['https://static.news.example.org/img/logo.png', 'image'],
    ]) {
      expect(blocks(url, type)).toBe(false);
    }
  });

  it('does not block a tracker’s site loading its own scripts (domain rules hold for third parties only)', () => {
    expect(blocks('https://static.doubleclick.net/js/app.js', 'script', 'https://www.doubleclick.net/')).toBe(false);
  });

  it('lets categories outside the blocked set load: tag manager, CDN, social widget, captcha', () => {
    expect(blocks('https://www.googletagmanager.com/gtm.js?id=GTM-ABC1')).toBe(false); // utilities
    expect(blocks('https://cdn.shopify.com/s/files/1/theme.js')).toBe(false); // hosting
    expect(blocks('https://platform.twitter.com/widgets.js')).toBe(false); // social_media, same host as oct.js
    expect(blocks('https://www.google.com/recaptcha/api.js')).toBe(false); // google's domains also serve utilities
    expect(blocks('https://fonts.googleapis.com/css2?family=Inter', 'stylesheet')).toBe(false); // hosting
  });

  it('never blocks the tab’s own navigation, nor data: and blob: URLs', () => {
    expect(
      blocker.blocks({
        url: 'https://ad.doubleclick.net/x',
        sourceUrl: 'about:blank',
        type: 'document',
        mainFrame: true,
      }),
    ).toBe(false);
    expect(blocker.blocks({ url: 'https://ad.doubleclick.net/x', sourceUrl: PAGE, type: 'document' })).toBe(true);
    expect(blocks('data:text/javascript,1')).toBe(false);
  });
});

describe('AdBlocker lifecycle', () => {
  it('blocks nothing before it is ready, builds once, and reads the list again after a failed read', async () => {
    let reads = 0;
    const list = async () => {
      reads++;
      if (reads === 1) throw new Error('unreadable');
      return '! trackerdb_id:ads trackerdb_category:advertising trackerdb_domain\n||ads.example.net^\n';
    };
    const blocker = new AdBlocker({ list, filterLists: [] });
    const ad = { url: 'https://ads.example.net/a.js', sourceUrl: PAGE, type: 'script' };
    expect(blocker.blocks(ad)).toBe(false);
    await expect(blocker.ready()).rejects.toThrow('unreadable');
    expect(blocker.isReady).toBe(false);
    await Promise.all([blocker.ready(), blocker.ready()]);
    expect(reads).toBe(2);
    expect(blocker.blocks(ad)).toBe(true);
  });
});

describe('AdBlocker with EasyList beside the tracker database (the default)', () => {
  const blocker = new AdBlocker();
  const trackerDbOnly = new AdBlocker({ filterLists: [] });
  beforeAll(() => Promise.all([blocker.ready(), trackerDbOnly.ready()]));

  it('loads the installed EasyList by default', () => {
    expect(DEFAULT_FILTER_LISTS).toEqual([expect.stringMatching(/\/easylist\.txt$/)]);
    expect(blocker.unreadLists).toEqual([]);
  });

  it('refuses a first-party ad script only EasyList knows (`/prebid-load.js$script`), on the page’s own host', () => {
    const request = { url: 'https://news.example.org/js/prebid-load.js', sourceUrl: PAGE, type: 'script' };
    expect(blocker.blocks(request)).toBe(true);
    expect(trackerDbOnly.blocks(request)).toBe(false);
    expect(blocker.blocks({ ...request, url: 'https://news.example.org/js/app-load.js' })).toBe(false);
  });

  it('keeps ADR 0030’s choices: the tag manager, CDN, widgets, captcha and the page’s own resources load', () => {
    const blocks = (url: string, type = 'script') => blocker.blocks({ url, sourceUrl: PAGE, type });
    expect(blocks('https://www.googletagmanager.com/gtm.js?id=GTM-ABC1')).toBe(false);
    expect(blocks('https://cdn.shopify.com/s/files/1/theme.js')).toBe(false);
    expect(blocks('https://platform.twitter.com/widgets.js')).toBe(false);
    expect(blocks('https://www.google.com/recaptcha/api.js')).toBe(false);
    expect(blocks('https://news.example.org/assets/app.js')).toBe(false);
    expect(blocks('https://securepubads.g.doubleclick.net/tag/js/gpt.js')).toBe(true);
  });

  it('goes on with the tracker database alone when a list file is missing, and names it', async () => {
    const missing = new AdBlocker({ filterLists: ['/nonexistent/easylist.txt'] });
    await missing.ready();
    expect(missing.unreadLists).toEqual([
      { path: '/nonexistent/easylist.txt', error: expect.stringContaining('ENOENT') },
    ]);
    expect(missing.blocks({ url: 'https://news.example.org/js/prebid-load.js', sourceUrl: PAGE, type: 'script' })).toBe(
      false,
    );
    expect(
      missing.blocks({ url: 'https://securepubads.g.doubleclick.net/tag/js/gpt.js', sourceUrl: PAGE, type: 'script' }),
    ).toBe(true);
  });
});

describe('selectFilters', () => {
  const list = [
    '! trackerdb_id:adco trackerdb_category:advertising trackerdb_filter',
    '||px.adco.example^$3p',
    '! trackerdb_id:adco trackerdb_category:advertising trackerdb_domain',
    '||adco.example^',
    '! trackerdb_id:bigco trackerdb_category:advertising trackerdb_domain',
    '||bigco.example^',
    '! trackerdb_id:bigco_maps trackerdb_category:utilities trackerdb_filter',
    '||maps.bigco.example/embed',
    '! trackerdb_id:cdnco trackerdb_category:hosting trackerdb_domain',
    '||cdnco.example^',
    '! trackerdb_id:stats trackerdb_category:site_analytics trackerdb_filter',
    '||stats.example/collect$ping',
  ].join('\n');

  it('keeps the blocked categories’ filters, makes domain rules third-party, drops domains shared with loading ones', () => {
    expect(selectFilters(parseTrackerDb(list), new Set(AD_BLOCK_CATEGORIES))).toEqual([
      '||px.adco.example^$3p',
      '||adco.example^$3p',
      '||stats.example/collect$ping',
    ]);
  });

  it('reads the real list: DoubleClick’s filters are in, Google’s own domain rule is out', () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const text = readFileSync(join(here, '../../../../node_modules/@ghostery/trackerdb/dist/trackerdb.txt'), 'utf8');
    const filters = new Set(selectFilters(parseTrackerDb(text), new Set(AD_BLOCK_CATEGORIES)));
    expect(filters.has('||doubleclick.net^$3p')).toBe(true);
    expect(filters.has('||googlesyndication.com^$3p')).toBe(true);
    expect(filters.has('||google.com^$3p')).toBe(false);
    expect(filters.has('||cdn.shopify.com^$3p')).toBe(false);
  });
});

describe("EasyList's extended rules in the syntax the engine reads", () => {
  it("reads Adblock Plus's `#?#` rules as uBlock does, and leaves every other line as written", () => {
    const list = [
      '! a comment with #?# in it',
      'staples.com#?#.carousel:-abp-contains(Sponsored Products)',
      'shopee.sg#?#.section:has(> .content:-abp-contains(Ad))',
      'example.org#?#.w:-abp-has(.adx)',
      'example.org#@?#.w:-abp-has(.adx)',
      '#?#.generic:-abp-contains(/sponsored/i)',
      'example.net##.plain',
      '||ads.example^$third-party',
    ].join('\n');
    expect(extendedSyntaxOfUblock(list).split('\n')).toEqual([
      '! a comment with #?# in it',
      'staples.com##.carousel:has-text(Sponsored Products)',
      'shopee.sg##.section:has(> .content:has-text(Ad))',
      'example.org##.w:has(.adx)',
      'example.org#@#.w:has(.adx)',
      '##.generic:has-text(/sponsored/i)',
      'example.net##.plain',
      '||ads.example^$third-party',
    ]);
    const plain = 'example.net##.plain\n||ads.example^';
    expect(extendedSyntaxOfUblock(plain)).toBe(plain);
  });
});
