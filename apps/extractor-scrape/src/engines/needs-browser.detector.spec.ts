import { describe, expect, it } from '@jest/globals';
import { readCounted } from '@trawl/testing';
import { needsBrowser, pageTitle, scanPage, visibleText } from './needs-browser.detector.js';

const article = `<html><head><title>A</title><script src="/analytics.js"></script></head><body><main>${'<p>Plenty of server-rendered text here. </p>'.repeat(20)}</main></body></html>`;

describe('needsBrowser', () => {
  it('keeps a server-rendered article on the plain fetch even when it has scripts', () => {
    expect(needsBrowser(article)).toBe(false);
  });

  it('asks for the browser when the app root is empty', () => {
    expect(needsBrowser('<html><body><div id="root"></div><script src="/app.js"></script></body></html>')).toBe(true);
    expect(needsBrowser('<html><body><div id="__next">  </div></body></html>')).toBe(true);
  });

  it('asks for the browser when a noscript says JavaScript is required', () => {
    expect(
      needsBrowser(
        '<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="x">Loading</div></body>',
      ),
    ).toBe(true);
  });

  it('asks for the browser for scripts with next to no text', () => {
    expect(needsBrowser('<body><h1>Shop</h1><script>render()</script></body>')).toBe(true);
  });

  it('keeps a short static page without scripts on the plain fetch', () => {
    expect(needsBrowser('<body><h1>Hello</h1><p>Short page.</p></body>')).toBe(false);
  });
});

describe('visibleText', () => {
  it('drops scripts, styles and tags', () => {
    expect(visibleText('<style>p{}</style><p>a <b>b</b></p><script>x()</script>')).toBe('a b');
  });
});

describe('scanPage on hostile pages', () => {
  it('reads the title of a page of <title> repeated, in one pass', () => {
    const page = '<title>'.repeat(200_000);
    expect(scanPage(page).title.length).toBeLessThanOrEqual(1024);
    expect(needsBrowser(page)).toBe(false);
  });

  /**
   * "One pass", counted rather than timed: the work the scan does on a page (characters read, sliced or searched,
   * through `readCounted`) grows with the page, no faster, and no step takes the whole page at once (a regular
   * expression over the page, which can backtrack quadratically where no count sees it). A scan that searches the
   * rest of the page for each `<title>` or tag reads the 8× page 64× as much and fails here.
   */
  it.each([
    ['<title> repeated', (n: number) => '<title>'.repeat(n)],
    ['unclosed tags', (n: number) => '<div><span><p><a>'.repeat(n)],
    ['deep nesting', (n: number) => `${'<div>'.repeat(n)}deep${'</div>'.repeat(n)}`],
    ['unclosed script', (n: number) => `<p>x</p><script>${'if(a<b){c("</scr")}'.repeat(n)}`],
    ['unclosed noscript', (n: number) => `<noscript>${'enable <b>javascript</b> '.repeat(n)}`],
    ['unclosed attribute', (n: number) => `<div id="${'root '.repeat(n)}`],
  ])('does work in proportion to the page, in one pass: %s', (_name, build) => {
    const work = (n: number) => {
      const { text, reads } = readCounted(build(n));
      scanPage(text, 1000);
      return { length: text.length, ...reads };
    };
    const small = work(1_000);
    const large = work(8_000);
    expect(small.wholeText).toEqual([]);
    expect(large.wholeText).toEqual([]);
    // Each character read about once (a slice of a token reads it a second time), on any size.
    expect(small.chars).toBeLessThanOrEqual(3 * small.length);
    expect(large.chars).toBeLessThanOrEqual(3 * large.length);
    // Eight times the page, eight times the work: a quadratic scan does 64 times.
    expect(large.chars / small.chars).toBeLessThanOrEqual(8 * 1.25);
  });

  it('scans megabytes of unclosed tags and deep nesting without a stack', () => {
    expect(scanPage('<div><span><p><a>'.repeat(300_000)).textLength).toBe(0);
    const nested = `${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}`;
    expect(visibleText(nested)).toBe('deep');
  });

  it('decodes entities in the title and keeps the first title only', () => {
    expect(scanPage('<title>Tom &amp; Jerry&nbsp;x</title><title>second</title>').title).toBe('Tom & Jerry x');
  });

  it("reads the title alone as the whole scan reads it, and stops at the title's end", () => {
    const pages = [
      '<title>Tom &amp; Jerry&nbsp;x</title><title>second</title>',
      `<html><head><title>\n  A   page </title></head><body>${'<p>text</p>'.repeat(100)}</body></html>`,
      `<body><p>no title in the head</p><svg><title>An icon</title></svg></body>`,
      '<p>no title at all</p>',
      '<title>'.repeat(2_000),
    ];
    for (const page of pages) expect(pageTitle(page)).toBe(scanPage(page).title);
    const { text, reads } = readCounted(`<title>First</title>${'<p>the rest of the page</p>'.repeat(10_000)}`);
    expect(pageTitle(text)).toBe('First');
    expect(reads.chars).toBeLessThan(1_000);
  });
});
