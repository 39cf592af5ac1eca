import { describe, expect, it } from '@jest/globals';
import { parseProxyEntry, ProxyRotation } from './proxy-rotation.policy.js';

describe('ProxyRotation with countries (ADR 0019)', () => {
  it('reads the countries an entry serves from its fragment, and strips it from the URL', () => {
    expect(parseProxyEntry('http://u:p@127.0.0.1:3128#DE+at')).toEqual({
      url: 'http://u:p@127.0.0.1:3128',
      countries: ['DE', 'AT'],
    });
    expect(parseProxyEntry('http://127.0.0.1:3128')).toEqual({ url: 'http://127.0.0.1:3128', countries: [] });
  });

  it("hands out a country's proxies for that country, in turn, and all of them otherwise", () => {
    const r = new ProxyRotation(['http://a:1#US', 'http://b:1#DE', 'http://c:1', 'http://d:1#DE+AT']);
    expect(r.all()).toEqual(['http://a:1', 'http://b:1', 'http://c:1', 'http://d:1']);
    expect([r.next('', 'de'), r.next('', 'DE'), r.next('', 'DE')]).toEqual(['http://b:1', 'http://d:1', 'http://b:1']);
    expect(r.next('', 'AT')).toBe('http://d:1');
    // No proxy says it serves FR: the rotation over all of them.
    expect(new Set([r.next('', 'FR'), r.next('', 'FR'), r.next('', 'FR'), r.next('', 'FR')])).toEqual(new Set(r.all()));
  });

  it("skips a country's resting proxy while another of it is ready", () => {
    let now = 0;
    const r = new ProxyRotation(['http://b:1#DE', 'http://d:1#DE'], { cooldownMs: 1000, now: () => now });
    r.markBlocked('http://b:1');
    expect([r.next('', 'DE'), r.next('', 'DE')]).toEqual(['http://d:1', 'http://d:1']);
    now = 2000;
    expect(new Set([r.next('', 'DE'), r.next('', 'DE')])).toEqual(new Set(['http://b:1', 'http://d:1']));
  });
});
