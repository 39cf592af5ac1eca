// matchesWithoutScripts must answer as the pattern asked of the page with its scripts cut, including matches that
// only exist once a script is cut out and matches that end where a script begins.
import { describe, expect, it } from '@jest/globals';
import { matchesWithoutScripts, withoutScripts } from './script-text.util.js';

const MARKUP = /role=["']?(feed|article)\b|<h1[\s>]|data-item-id=/i;

const PAGES: [string, string][] = [
  ['markup before any script', '<div role="feed"></div><script>var a=1;</script>'],
  ['markup only inside a script', '<div></div><script>x="<h1 >"; y="role=feed";</script><p></p>'],
  ['markup after the scripts', '<script>a</script><script>b</script><div data-item-id="x"></div>'],
  ['a match that spans a cut script', '<div role=fe<script>x</script>ed></div>'],
  ['a word boundary that a cut script removes', '<div role=feed<script>x</script>er></div>'],
  ['a match that ends where a script begins', '<div role=article<script>x</script> ></div>'],
  ['an unclosed script hiding the rest', '<p></p><script>x <h1>title</h1>'],
  ['no script at all, match at the very end', '<p>role=feed'],
  ['no markup at all', '<html><body><p>nothing here</p></body></html>'],
  ['upper case markup', '<DIV ROLE="FEED"></DIV>'],
];

describe('matchesWithoutScripts', () => {
  it.each(PAGES)('answers as the pattern on the page without scripts: %s', (_, html) => {
    expect(matchesWithoutScripts(html, MARKUP)).toBe(MARKUP.test(withoutScripts(html)));
  });

  it('finds the matches that exist only once scripts are cut, and not the ones inside scripts', () => {
    expect(matchesWithoutScripts('<div role=fe<script>x</script>ed></div>', MARKUP)).toBe(true);
    expect(matchesWithoutScripts('<div role=feed<script>x</script>er></div>', MARKUP)).toBe(false);
    expect(matchesWithoutScripts('<div></div><script>"<h1 >"</script><p></p>', MARKUP)).toBe(false);
  });
});
