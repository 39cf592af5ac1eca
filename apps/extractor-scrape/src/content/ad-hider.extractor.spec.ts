import { beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdBlocker } from '@trawl/browser-pool';
import { AdHider } from './ad-hider.extractor.js';
import { digestPage, type HtmlDigestTask, type PageDigest } from './page-digest.extractor.js';

// Rules of the installed EasyList (Debian's webext-ublock-origin-chromium), as the extractor loads it by default:
//   ##.adsbygoogle-wrapper                              generic, by class name (a name main content does not know)
//   ###ad-wrapper   and   ufoevidence.org#@##ad-wrapper   generic, by id, with a per-site exception
//   alchetron.com###alchetronFreeStarVideoAdContainer    one site's own
const PARAGRAPH =
  'The council voted on Tuesday to extend the tram line to the airport, a project of 14 km that will cost, ' +
  'by its own estimate, 640 million euros and open in 2029.';
const AD =
  '<div class="adsbygoogle-wrapper"><p>Cheap watches, 80 % off today, with free delivery to your door in the ' +
  'whole country, only at <a href="https://shop.example/watch">the watch shop</a>.</p></div>';
const WRAPPED = '<div id="ad-wrapper"><p>Sponsored: refinance your mortgage in five minutes.</p></div>';
const SITE_AD = '<div id="alchetronFreeStarVideoAdContainer"><p>Video ad: the new hatchback.</p></div>';
const PAGE = `<!doctype html><html lang="en"><head><title>Tram line approved</title></head><body>
<header><a href="/">Daily Ledger</a></header>
<article><h1>Tram line approved</h1><p>${PARAGRAPH}</p><p>${PARAGRAPH}</p>${AD}<p>${PARAGRAPH}</p>${WRAPPED}
<p>${PARAGRAPH}</p>${SITE_AD}<p>${PARAGRAPH}</p><p>${PARAGRAPH}</p></article>
<footer><p>© 2026 Daily Ledger.</p></footer></body></html>`;

describe('blockAds element hiding in the digest (EasyList)', () => {
  let hider: AdHider;
  beforeAll(async () => {
    const blocker = new AdBlocker();
    await blocker.ready();
    hider = new AdHider(blocker.serialize());
  });

  const digest = async (task: Partial<HtmlDigestTask>, withHider = true): Promise<PageDigest> => {
    const outcome = await digestPage(
      { kind: 'html', html: PAGE, markdown: true, checkBrowser: false, url: 'https://ledger.example/news', ...task },
      withHider ? { adHider: hider } : {},
    );
    if (!outcome.ok) throw new Error(outcome.error.message);
    return outcome.digest;
  };

  it.each([
    ['main content', true],
    ['whole page', false],
  ])('%s: the ad containers EasyList hides are left out with blockAds, the article is whole', async (_n, main) => {
    const md = (await digest({ onlyMainContent: main, hideAds: true })).markdown ?? '';
    expect(md).not.toContain('Cheap watches');
    expect(md).not.toContain('refinance your mortgage');
    expect(md).toContain('Video ad: the new hatchback'); // another site's rule
    expect(md.split(PARAGRAPH).length - 1).toBe(6);
    expect(md).toContain('# Tram line approved');
  });

  it.each([
    ['main content', true],
    ['whole page', false],
  ])('%s: without blockAds, or with no engine, the ad container stays', async (_n, main) => {
    for (const md of [
      (await digest({ onlyMainContent: main, hideAds: false })).markdown ?? '',
      (await digest({ onlyMainContent: main, hideAds: true }, false)).markdown ?? '',
    ]) {
      expect(md).toContain('Cheap watches');
      // `#ad-wrapper` is a name main content drops by itself: only the whole page keeps it.
      if (!main) expect(md).toContain('refinance your mortgage');
      expect(md.split(PARAGRAPH).length - 1).toBe(6);
    }
  });

  it('applies a site’s own rules on that site, and a site’s `#@#` exception there', async () => {
    const page = { hideAds: true, onlyMainContent: false };
    const alchetron = (await digest({ ...page, url: 'https://www.alchetron.com/Tram' })).markdown ?? '';
    expect(alchetron).not.toContain('Video ad: the new hatchback');
    expect(alchetron).not.toContain('Cheap watches');
    const ufo = (await digest({ ...page, url: 'https://ufoevidence.org/news' })).markdown ?? '';
    expect(ufo).toContain('refinance your mortgage'); // ufoevidence.org#@##ad-wrapper
    expect(ufo).not.toContain('Cheap watches');
  });

  // `appleinsider.com,…,metro.co.uk,…##[rel*="sponsored"]`: the site's affiliate links, often in its sentences.
  it('keeps a link a hiding rule names inside a sentence (`[rel*="sponsored"]`): the sentence stays whole', async () => {
    const html =
      `<html><body><article><h1>Deals</h1><p>${PARAGRAPH}</p><p>Amazon sells it for <strong><a rel="sponsored" ` +
      `href="https://amzn.example/x">as low as $2,299</a></strong> this week.</p><p>${PARAGRAPH}</p></article>` +
      '<div class="adsbygoogle-wrapper"><p>Cheap watches.</p></div><p><a rel="sponsored" href="https://amzn.example/y">' +
      'Sponsored: a standalone deal</a></p></body></html>';
    const outcome = await digestPage(
      { kind: 'html', html, markdown: true, checkBrowser: false, url: 'https://metro.co.uk/deals', hideAds: true },
      { adHider: hider },
    );
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.digest.markdown).toContain('[as low as $2,299](https://amzn.example/x)** this week.');
    expect(outcome.digest.markdown).not.toContain('Cheap watches');
    expect(outcome.digest.markdown).not.toContain('a standalone deal'); // the same rule, on a link of its own
  });

  // `bleepingcomputer.com#?#ul#bc-home-news-main-wrap > li:has-text(Sponsored)`: a `#?#` rule of EasyList's.
  it("applies a site's text-matching rule (`#?#`, `:has-text()`) on that site, and on no other", async () => {
    const story = (title: string) =>
      `<li><h4><a href="/news/${title.length}">${title}</a></h4><p>${PARAGRAPH}</p></li>`;
    const html =
      '<html><body><main><h1>Latest news</h1><ul id="bc-home-news-main-wrap">' +
      `${story('Patch Tuesday fixes six zero-days')}${story('Sponsored: the backup suite of the year')}` +
      `${story('Ransomware gang leaks data of a city')}</ul></main></body></html>`;
    const digestAt = async (url: string) => {
      const outcome = await digestPage(
        { kind: 'html', html, markdown: true, checkBrowser: false, url, hideAds: true },
        { adHider: hider },
      );
      if (!outcome.ok) throw new Error(outcome.error.message);
      return outcome.digest.markdown ?? '';
    };
    const site = await digestAt('https://www.bleepingcomputer.com/');
    expect(site).not.toContain('the backup suite');
    expect(site).toContain('Patch Tuesday fixes six zero-days');
    expect(site).toContain('Ransomware gang leaks data');
    expect(await digestAt('https://news.example/')).toContain('Sponsored: the backup suite of the year');
  });

  it('leaves links and metadata as the page has them', async () => {
    const d = await digest({ hideAds: true, links: true, metadata: true });
    expect(d.links).toContain('https://shop.example/watch');
    expect(d.metadata?.title).toBe('Tram line approved');
  });
});

describe('blockAds element hiding: extended rules of a list of our own', () => {
  let hider: AdHider;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-lists-'));
    const list = join(dir, 'list.txt');
    writeFileSync(
      list,
      [
        'shop.example#?#.card:-abp-contains(Sponsored)',
        'shop.example##.tile:has-text(/promoted|gesponsert/i)',
        'shop.example#?#.row:-abp-has(.ad-badge)',
        'shop.example##.box:upward(2)',
        'shop.example##.huge:has-text(never there)',
        'shop.example##.late:has-text(Sponsored)',
        '##.anywhere:has-text(Sponsored)',
      ].join('\n'),
    );
    const blocker = new AdBlocker({ list: async () => '', filterLists: [list] });
    await blocker.ready();
    hider = new AdHider(blocker.serialize());
  });

  const markdown = async (body: string, url = 'https://shop.example/list') => {
    const html = `<html><body><main><h1>Results</h1>${body}</main></body></html>`;
    const outcome = await digestPage(
      { kind: 'html', html, markdown: true, checkBrowser: false, url, hideAds: true },
      { adHider: hider },
    );
    if (!outcome.ok) throw new Error(outcome.error.message);
    return outcome.digest.markdown ?? '';
  };

  it('hides by the text an element contains, a string or a regular expression, and by what it has', async () => {
    const md = await markdown(
      '<div class="card"><p>Sponsored: a blender</p></div><div class="card"><p>A kettle, 4.5 stars</p></div>' +
        '<div class="tile"><p>PROMOTED toaster</p></div><div class="tile"><p>A toaster, 4 stars</p></div>' +
        '<div class="row"><span class="ad-badge">Ad</span><p>A mixer</p></div><div class="row"><p>A grinder</p></div>',
    );
    expect(md).not.toContain('a blender');
    expect(md).not.toContain('PROMOTED toaster');
    expect(md).not.toContain('A mixer');
    for (const kept of ['A kettle', 'A toaster, 4 stars', 'A grinder']) expect(md).toContain(kept);
  });

  it('skips what needs a live page (`:upward()`) and generic text rules, and applies none on another site', async () => {
    const body =
      '<div class="box"><p>A box of tea</p></div><div class="anywhere"><p>Sponsored tea</p></div>' +
      '<div class="card"><p>Sponsored: a blender</p></div>';
    const md = await markdown(body);
    expect(md).toContain('A box of tea');
    expect(md).toContain('Sponsored tea');
    expect(md).not.toContain('a blender');
    expect(await markdown(body, 'https://other.example/list')).toContain('Sponsored: a blender');
  });

  it('reads at most a million characters of text a page for such rules: past them, nothing more is hidden', async () => {
    const huge = `<div class="huge"><p>${'word '.repeat(220_000)}</p></div>`;
    const late = '<div class="late"><p>Sponsored: a late blender</p></div>';
    expect(await markdown(late)).not.toContain('a late blender');
    expect(await markdown(huge + late)).toContain('a late blender');
  });
});

// The pages of main-content-non-article.spec.ts (product pages, docs, forums, listings, search results, home pages):
// element hiding must take none of their content. None carries an ad, so their markdown is the same with blockAds.
describe('blockAds element hiding on pages that are not articles', () => {
  const DIR = new URL('../../test/fixtures/non-article/', import.meta.url);
  const PAGES = JSON.parse(readFileSync(new URL('content.json', DIR), 'utf8')) as Record<string, { keep: string[] }>;
  let hider: AdHider;
  beforeAll(async () => {
    const blocker = new AdBlocker();
    await blocker.ready();
    hider = new AdHider(blocker.serialize());
  });

  it.each(Object.keys(PAGES))('%s: the same main content with blockAds as without', async (name) => {
    const html = readFileSync(new URL(`${name}.html`, DIR), 'utf8');
    const task = { kind: 'html', html, markdown: true, checkBrowser: false, onlyMainContent: true } as const;
    const url = `https://example.com/${name}`;
    const [plain, hidden] = await Promise.all([
      digestPage({ ...task, url }),
      digestPage({ ...task, url, hideAds: true }, { adHider: hider }),
    ]);
    if (!plain.ok || !hidden.ok) throw new Error('digest failed');
    expect(hidden.digest.markdown).toBe(plain.digest.markdown);
  });
});
