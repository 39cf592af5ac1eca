import { describe, expect, it } from '@jest/globals';
import { digestPage, type HtmlDigestTask, type PageDigest } from './page-digest.extractor.js';

const PARAGRAPH =
  'The council voted on Tuesday to extend the tram line to the airport, a project of 14 km that will cost, ' +
  'by its own estimate, 640 million euros and open in 2029.';
const ARTICLE = `<!doctype html><html lang="en"><head><title>Tram line approved</title>
<meta name="description" content="The airport line"><link rel="canonical" href="/news/tram"></head><body>
<header><a href="/">Daily Ledger</a><ul class="menu"><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></header>
<div class="cookie-banner">We use cookies. <a href="/privacy">Privacy</a></div>
<div class="layout"><div class="story"><h1>Tram line approved</h1>${`<p>${PARAGRAPH}</p>`.repeat(6)}
<div class="share-bar"><a href="https://social.example/share">Share this story</a></div></div>
<div class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Heatwave warning</a></li><li><a href="/b">Bakery award</a></li></ul></div></div>
<footer><p>© 2026 Daily Ledger. All rights reserved.</p></footer></body></html>`;

async function digest(extra: Partial<HtmlDigestTask>): Promise<PageDigest> {
  const outcome = await digestPage({
    kind: 'html',
    html: ARTICLE,
    markdown: true,
    checkBrowser: false,
    url: 'https://ledger.example/news/tram?utm=x',
    ...extra,
  });
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.digest;
}

describe('digestPage: main content, selectors, links and metadata', () => {
  it('onlyMainContent: the article without menus, banners, share bars, sidebars or footers', async () => {
    const { markdown } = await digest({ onlyMainContent: true });
    expect(markdown).toContain('# Tram line approved');
    expect(markdown).toContain('640 million euros');
    for (const furniture of ['Sport', 'We use cookies', 'Share this story', 'Most read', 'All rights reserved'])
      expect(markdown).not.toContain(furniture);
  });

  it('onlyMainContent false: the whole page', async () => {
    const { markdown } = await digest({ onlyMainContent: false });
    for (const all of ['Tram line approved', 'Sport', 'We use cookies', 'Most read', 'All rights reserved'])
      expect(markdown).toContain(all);
  });

  it('makes link and image URLs absolute in the markdown, against <base href> else the page, on every path', async () => {
    const page = (head: string) =>
      `<html><head>${head}</head><body><main><p>See <a href="next?p=2#top">the next page</a>, ` +
      `<a href="#notes">the notes</a>, <a href="mailto:desk@ledger.example">the desk</a> and ` +
      `<a href="https://other.example/x">elsewhere</a>.</p><img src="img/map(1).png" alt="Map"></main></body></html>`;
    const url = 'https://ledger.example/news/tram?utm=x';
    for (const task of [{}, { onlyMainContent: true }, { links: true }, { includeTags: ['main'] }]) {
      const plain = await digestPage({
        kind: 'html',
        html: page(''),
        markdown: true,
        checkBrowser: false,
        url,
        ...task,
      });
      const based = await digestPage({
        kind: 'html',
        html: page('<base href="/archive/2026/">'),
        markdown: true,
        checkBrowser: false,
        url,
        ...task,
      });
      if (!plain.ok || !based.ok) throw new Error('digest failed');
      expect({ task, markdown: plain.digest.markdown }).toEqual({
        task,
        markdown:
          'See [the next page](https://ledger.example/news/next?p=2#top), ' +
          '[the notes](https://ledger.example/news/tram?utm=x#notes), [the desk](mailto:desk@ledger.example) and ' +
          '[elsewhere](https://other.example/x).\n\n![Map](https://ledger.example/news/img/map(1).png)',
      });
      expect(based.digest.markdown).toContain('[the next page](https://ledger.example/archive/2026/next?p=2#top)');
      expect(based.digest.markdown).toContain('![Map](https://ledger.example/archive/2026/img/map');
    }
  });

  it('includeTags: only those elements, not narrowed further by the main content', async () => {
    const { markdown } = await digest({ onlyMainContent: true, includeTags: ['.sidebar', 'h1'] });
    expect(markdown).toBe(
      '# Tram line approved\n\n### Most read\n\n-   [Heatwave warning](https://ledger.example/a)\n' +
        '-   [Bakery award](https://ledger.example/b)',
    );
  });

  it('excludeTags: removed before the main content is chosen', async () => {
    const { markdown } = await digest({ onlyMainContent: true, excludeTags: ['h1'] });
    expect(markdown).not.toContain('Tram line approved');
    expect(markdown).toContain('640 million euros');
    const whole = await digest({ onlyMainContent: false, excludeTags: ['footer', '.menu'] });
    expect(whole.markdown).toContain('Most read');
    expect(whole.markdown).not.toContain('All rights reserved');
    expect(whole.markdown).not.toContain('Sport');
  });

  it('links: every link of the whole page, absolute, whatever the markdown keeps', async () => {
    const { links } = await digest({ onlyMainContent: true, links: true });
    expect(links).toEqual([
      'https://ledger.example/',
      'https://ledger.example/news',
      'https://ledger.example/sport',
      'https://ledger.example/privacy',
      'https://social.example/share',
      'https://ledger.example/a',
      'https://ledger.example/b',
    ]);
  });

  it('metadata: read from the head', async () => {
    const { metadata } = await digest({ metadata: true, markdown: false });
    expect(metadata).toEqual({
      title: 'Tram line approved',
      language: 'en',
      description: 'The airport line',
      canonical: 'https://ledger.example/news/tram',
    });
  });

  it('a page whose content is one element keeps that element (a heading stays a heading)', async () => {
    const html = '<html><body><div id="root"><h2>Client side content</h2></div></body></html>';
    const outcome = await digestPage({
      kind: 'html',
      html,
      markdown: true,
      checkBrowser: false,
      onlyMainContent: true,
    });
    expect(outcome.ok && outcome.digest.markdown).toBe('## Client side content');
  });

  it('a page nested 100,000 deep fails its own task with PAGE_TOO_COMPLEX, never a crash', async () => {
    const html = `<html><body>${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}</body></html>`;
    const outcome = await digestPage({
      kind: 'html',
      html,
      markdown: true,
      checkBrowser: false,
      onlyMainContent: true,
    });
    if (outcome.ok) expect(outcome.digest.markdown).toContain('deep');
    else expect(outcome.error.code).toBe('PAGE_TOO_COMPLEX');
  });
});
