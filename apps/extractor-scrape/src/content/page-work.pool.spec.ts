import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { AdBlocker } from '@trawl/browser-pool';
import { PageWorkPool } from './page-work.pool.js';

async function makePdf(lines: string[], title: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const line of lines) doc.addPage().drawText(line, { x: 50, y: 700, size: 14, font });
  return doc.save();
}

describe('PageWorkPool (piscina worker threads)', () => {
  const pool = new PageWorkPool({ threads: 2, budgetMs: 20_000, inlineBelowChars: 1000 });
  const tight = new PageWorkPool({ threads: 1, budgetMs: 1, inlineBelowChars: 0 });
  const later = () => Date.now() + 30_000;

  // As the service does at start: a worker's start-up (loading its modules, tens of seconds on a loaded machine) is
  // not the first test's page, whose deadline would otherwise pay for it (the whole-suite hunt saw it run out).
  beforeAll(() => pool.warmUp(), 120_000);

  afterAll(async () => {
    await pool.close();
    await tight.close();
  });

  it('converts a large page to markdown in a worker, with its title', async () => {
    const html = `<html><head><title>Big &amp; long</title></head><body><h1>Top</h1>${'<p>para</p>'.repeat(2000)}</body></html>`;
    const digest = await pool.digest({ kind: 'html', html, markdown: true, checkBrowser: false }, later(), 'the page');
    expect(digest.title).toBe('Big & long');
    expect(digest.markdown?.startsWith('# Top')).toBe(true);
  });

  it('stops at the scan when the auto engine asks and the page needs a browser', async () => {
    const html = `<body><div id="root"></div><script>${'x'.repeat(5000)}</script></body>`;
    const digest = await pool.digest({ kind: 'html', html, markdown: true, checkBrowser: true }, later(), 'the page');
    expect(digest).toEqual({ title: '', needsBrowser: true });
  });

  it("returns a PDF's text page by page", async () => {
    const bytes = await makePdf(['Hello from page one', 'And page two'], 'A test PDF');
    const digest = await pool.digest({ kind: 'pdf', bytes, host: 'files.test' }, later(), 'the PDF');
    expect(digest.title).toBe('A test PDF');
    expect(digest.markdown).toBe('Hello from page one\n\nAnd page two');
  });

  it('fails a file that is not a PDF with PAGE_NOT_RECOGNISED', async () => {
    const bytes = new TextEncoder().encode('%PDF-1.7 but not really');
    await expect(pool.digest({ kind: 'pdf', bytes, host: 'files.test' }, later(), 'the PDF')).rejects.toMatchObject({
      code: 'PAGE_NOT_RECOGNISED',
    });
  });

  it('fails a page over its budget with PAGE_TOO_COMPLEX, and the pool serves the next page', async () => {
    const html = `<body>${'<div><p>text <b>bold</b></p>'.repeat(100_000)}</body>`;
    await expect(
      tight.digest({ kind: 'html', html, markdown: true, checkBrowser: false }, later(), 'the page'),
    ).rejects.toMatchObject({
      code: 'PAGE_TOO_COMPLEX',
    });
    const ok = await pool.digest(
      { kind: 'html', html: `<h2>fine</h2>${' '.repeat(2000)}`, markdown: true, checkBrowser: false },
      later(),
      'x',
    );
    expect(ok.markdown).toBe('## fine');
  });
});

describe('PageWorkPool with the ad blocker’s engine (blockAds element hiding, ADR 0030)', () => {
  let pool: PageWorkPool;
  beforeAll(async () => {
    const blocker = new AdBlocker();
    await blocker.ready();
    pool = new PageWorkPool({ threads: 1, budgetMs: 20_000, inlineBelowChars: 1000, adFilters: blocker.serialize() });
    await pool.warmUp();
  }, 120_000);
  afterAll(() => pool?.close());

  // `##.adsbygoogle-wrapper` of EasyList; a page large enough for a worker thread, and one small enough for inline.
  const page = (paragraphs: number) =>
    `<html><body><article><h1>Top</h1>${'<p>The story goes on.</p>'.repeat(paragraphs)}` +
    '<div class="adsbygoogle-wrapper"><p>Cheap watches, 80 % off.</p></div></article></body></html>';

  it.each([
    ['in a worker thread', 200],
    ['inline', 1],
  ])('%s: hides what EasyList hides with hideAds, and only then', async (_n, paragraphs) => {
    const task = { kind: 'html', html: page(paragraphs), markdown: true, checkBrowser: false } as const;
    const later = Date.now() + 30_000;
    const hidden = await pool.digest({ ...task, hideAds: true }, later, 'the page');
    const shown = await pool.digest(task, later, 'the page');
    expect(hidden.markdown).not.toContain('Cheap watches');
    expect(hidden.markdown).toContain('The story goes on.');
    expect(shown.markdown).toContain('Cheap watches');
  });
});
