import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { digestPage } from './page-digest.extractor.js';

// Pages that are not articles (product pages, documentation, forum threads, listings, search results, home pages and
// others), written for this test with what a person would call their content (`keep`) and the page furniture they
// carry (`drop`: cookie banner, newsletter box, footer, the sidebar's "Popular right now"). Main content must keep
// every piece of the content (ADR 0023) and should shed the furniture.
const DIR = new URL('../../test/fixtures/non-article/', import.meta.url);
const PAGES = JSON.parse(readFileSync(new URL('content.json', DIR), 'utf8')) as Record<
  string,
  { keep: string[]; drop: string[] }
>;

/** Markdown read as text: escapes, emphasis and link targets out, whitespace collapsed. */
function text(markdown: string): string {
  return markdown
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/\\([\\`*_{}[\]()#+\-.!>~|])/g, '$1')
    .replace(/[*_[\]]/g, '')
    .replace(/\s+/g, ' ');
}

async function mainContent(name: string): Promise<string> {
  const html = readFileSync(new URL(`${name}.html`, DIR), 'utf8');
  const outcome = await digestPage({
    kind: 'html',
    html,
    markdown: true,
    checkBrowser: false,
    onlyMainContent: true,
    url: `https://example.com/${name}`,
  });
  if (!outcome.ok) throw new Error(outcome.error.message);
  return text(outcome.digest.markdown ?? '');
}

describe('main content on pages that are not articles', () => {
  it('has at least 20 such pages of six kinds', () => {
    const names = Object.keys(PAGES);
    expect(names.length).toBeGreaterThanOrEqual(20);
    for (const kind of ['product', 'docs', 'forum', 'listing', 'search', 'home'])
      expect(names.filter((n) => n.startsWith(kind)).length).toBeGreaterThanOrEqual(3);
  });

  it.each(Object.keys(PAGES))('%s keeps all of its content', async (name) => {
    const markdown = await mainContent(name);
    const missing = PAGES[name].keep.filter((phrase) => !markdown.includes(text(phrase)));
    expect(missing).toEqual([]);
  });

  it.each(Object.keys(PAGES))('%s sheds the page furniture', async (name) => {
    const markdown = await mainContent(name);
    const kept = PAGES[name].drop.filter((phrase) => markdown.includes(text(phrase)));
    expect(kept).toEqual([]);
  });
});
