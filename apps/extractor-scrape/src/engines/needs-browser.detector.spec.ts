import { describe, expect, it } from '@jest/globals';
import { needsBrowser, scanPage, visibleText } from './needs-browser.detector.js';

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

  it('scans megabytes of unclosed tags and deep nesting without a stack', () => {
    expect(scanPage('<div><span><p><a>'.repeat(300_000)).textLength).toBe(0);
    const nested = `${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}`;
    expect(visibleText(nested)).toBe('deep');
  });

  it('decodes entities in the title and keeps the first title only', () => {
    expect(scanPage('<title>Tom &amp; Jerry&nbsp;x</title><title>second</title>').title).toBe('Tom & Jerry x');
  });
});
