import { describe, expect, it } from '@jest/globals';
import { loadPageDom, MAX_DOM_DEPTH } from './page-dom.factory.js';
import { newScanMeter } from './scan-meter.types.js';

function depthOf(el: { parent: unknown } | null): number {
  let d = 0;
  for (let cur = el as { parent: unknown } | null; cur; cur = cur.parent as { parent: unknown } | null) d++;
  return d;
}

describe('loadPageDom', () => {
  it('parses HTML as htmlparser2 does: entities decoded, attributes read', () => {
    const $ = loadPageDom('<html lang="en"><head><title>T</title></head><body><p id="a">a &amp; b</p></body></html>');
    expect($('p#a').text()).toBe('a & b');
    expect($('html').attr('lang')).toBe('en');
    expect($('title').text()).toBe('T');
  });

  it('keeps nesting up to the cap and attaches deeper elements as siblings at the cap, as Chromium does', () => {
    const n = MAX_DOM_DEPTH * 3;
    const meter = newScanMeter();
    const $ = loadPageDom(`<body>${'<div><i>x</i>'.repeat(n)}${'</div>'.repeat(n)}</body>`, meter);
    expect($('div').length).toBe(n);
    expect($('i').length).toBe(n);
    const deepest = Math.max(
      ...$('i')
        .toArray()
        .map((e) => depthOf(e)),
    );
    expect(deepest).toBeLessThanOrEqual(MAX_DOM_DEPTH + 1);
    expect(meter.maxDepth).toBe(MAX_DOM_DEPTH);
    // Text under the capped elements is still there, in document order.
    expect($('body').text()).toBe('x'.repeat(n));
  });

  it('counts selector work on the meter', () => {
    const meter = newScanMeter();
    const $ = loadPageDom(`<body>${'<div role="article"><span>x</span></div>'.repeat(50)}</body>`, meter);
    expect($('[role="article"] span').length).toBe(50);
    expect(meter.domReads).toBeGreaterThan(50);
    expect(meter.nodes).toBeGreaterThan(100);
  });
});
