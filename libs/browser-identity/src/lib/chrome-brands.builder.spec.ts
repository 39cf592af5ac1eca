import { describe, expect, it } from '@jest/globals';
import { HeaderGenerator } from 'header-generator';
import { brandHeader, chromeBrands, majorOf } from './chrome-brands.builder.js';

describe('chromeBrands', () => {
  it('gives a Sec-CH-UA header-generator recorded from real Chrome, for every Chrome major from 110 in its dataset', () => {
    const generator = new HeaderGenerator();
    let versions = 0;
    for (let v = 110; v <= 200; v++) {
      // Its network samples header values, and now and then pairs a version with another version's GREASE brand or
      // order: ours must be among the values recorded for the version (the most frequent one where they differ).
      const seen = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const h = generator.getHeaders({
          browsers: [{ name: 'chrome', minVersion: v, maxVersion: v }],
          devices: ['desktop'],
          httpVersion: '2',
        });
        const m = /Chrome\/(\d+)/.exec(h['user-agent'] ?? '');
        const recorded = h['sec-ch-ua'];
        if (m && Number(m[1]) === v && recorded?.includes(`"Google Chrome";v="${v}"`)) seen.add(recorded);
      }
      if (seen.size === 0) continue;
      versions++;
      expect([...seen]).toContain(brandHeader(chromeBrands(`${v}.0.0.0`, { brand: 'Google Chrome' })));
    }
    expect(versions).toBeGreaterThan(20);
  });

  it("gives Chromium's own two-entry list (what the real Chromium 156 reports)", () => {
    expect(chromeBrands('156.0.8078.79')).toEqual([
      { brand: 'Not:A-Brand', version: '8' },
      { brand: 'Chromium', version: '156' },
    ]);
    expect(chromeBrands('156.0.8078.79', { full: true })).toEqual([
      { brand: 'Not:A-Brand', version: '8.0.0.0' },
      { brand: 'Chromium', version: '156.0.8078.79' },
    ]);
  });

  it('rejects a string that is not a version', () => {
    expect(() => majorOf('HeadlessChrome')).toThrow(/not a Chrome version/);
    expect(majorOf('149.0.7800.1')).toBe(149);
  });
});
