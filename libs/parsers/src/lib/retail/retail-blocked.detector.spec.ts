// The walls Amazon answers with instead of a product page, named: on the real captures in ../shared/fixtures/retail
// (skipped with a message when absent) and on our small pages in __fixtures__.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixturesAvailable, listFixtures, readFixture } from '../../testing/fixtures.reader.js';
import { WALL_NAMES, wallOf } from '../wall/index.js';
import { classifyRetailWall, parseProductPage } from './index.js';

const local = (name: string): string =>
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', name), 'utf8');

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, nothing was thrown');
}

/** The AWS WAF challenge as Amazon stores serve it (202): gokuProps, the challenge script, AwsWafIntegration. */
const AWS_WAF_CHALLENGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title></title>
<script type="text/javascript">window.awsWafCookieDomainList = [];window.gokuProps = {"key":"AQIDAHj","iv":"CgAEXj","context":"xyz"};</script>
<script src="https://3e3378af7cd0.5c9b2b5a.us-east-1.token.awswaf.com/3e3378af7cd0/1c0be5bd7c4b/challenge.js"></script></head>
<body><div id="challenge-container"></div><script type="text/javascript">AwsWafIntegration.saveReferrer();AwsWafIntegration.checkForceRefresh().then((f) => { AwsWafIntegration.getToken().then(() => { window.location.reload(true); }); });</script>
<noscript><h1>JavaScript is disabled</h1>In order to continue, we need to verify that you're not a robot. This requires JavaScript. Enable JavaScript and then reload the page.</noscript></body></html>`;

const url = 'https://www.amazon.com/dp/B0TESTASIN';

describe('classifyRetailWall and the walls parseProductPage names', () => {
  it('names the robot check the unusual-traffic page', () => {
    const html = local('captcha.html');
    expect(classifyRetailWall(html)).toBe('unusual-traffic');
    const error = thrownBy(() => parseProductPage(html, { url }));
    expect(error).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryable: true, wall: 'unusual-traffic' });
    expect((error as Error).message).toContain(WALL_NAMES['unusual-traffic']);
  });

  it('names the AWS WAF challenge the JavaScript challenge (a browser gets past it)', () => {
    expect(classifyRetailWall(AWS_WAF_CHALLENGE)).toBe('javascript-challenge');
    const error = thrownBy(() => parseProductPage(AWS_WAF_CHALLENGE, { url }));
    expect(error).toMatchObject({ code: 'UPSTREAM_BLOCKED', wall: 'javascript-challenge' });
    expect((error as Error).message).toMatch(/JavaScript challenge \(AWS WAF\)/);
  });

  it('names the 503 page the throttling page, and leaves the 404 page (UPSTREAM_NOT_FOUND) unnamed', () => {
    const throttled =
      '<html><body><a href="/ref=cs_503_link">Sorry! Something went wrong on our end.</a></body></html>';
    expect(classifyRetailWall(throttled)).toBe('throttling');
    expect(wallOf(thrownBy(() => parseProductPage(throttled, { url })))).toBe('throttling');
    const notFound =
      '<html><body><a href="/ref=cs_404_logo">Looking for something?</a> not a functioning page on our site</body></html>';
    expect(classifyRetailWall(notFound)).toBeUndefined();
    expect(thrownBy(() => parseProductPage(notFound, { url }))).toMatchObject({ code: 'UPSTREAM_NOT_FOUND' });
  });

  it('leaves our product pages unnamed', () => {
    for (const name of ['product-2019-com.html', 'product-2025-ae.html', 'product-no-scripts-de.html']) {
      expect([name, classifyRetailWall(local(name))]).toEqual([name, undefined]);
    }
  });
});

const available = fixturesAvailable('retail');
(available ? describe : describe.skip)('classifyRetailWall on the real Amazon captures', () => {
  it('does not take any real product page (2019-2026) for a wall', () => {
    const pages = listFixtures('retail', '.html');
    expect(pages.length).toBeGreaterThan(5);
    for (const name of pages)
      expect([name, classifyRetailWall(readFixture('retail', name))]).toEqual([name, undefined]);
  });
});
