import { describe, expect, it } from '@jest/globals';
import { assertMapsUrl, isMapsUrl } from './maps-url.guard.js';
import { GOOGLE_HOST, UpstreamOrigin } from './upstream-origin.policy.js';

const real = new UpstreamOrigin('https://www.google.com', GOOGLE_HOST);
const sim = new UpstreamOrigin('http://127.0.0.1:8090', GOOGLE_HOST);

describe('maps URL guard (ADR 0020)', () => {
  it.each([
    'https://www.google.com/maps/place/Griffith+Observatory/@34.1,-118.3,17z',
    'https://www.google.de/maps/search/kaffee/@52.5,13.4,13z?hl=de',
    'https://google.co.uk/maps?q=tea',
    'https://maps.google.com/?cid=123',
    'http://maps.google.fr/maps/place/x',
  ])('accepts the Google Maps URL %s', (url) => {
    expect(isMapsUrl(new URL(url), real)).toBe(true);
  });

  it.each([
    'https://evil.example/maps/place/x',
    'https://www.google.com/search?q=maps',
    'https://www.google.com/mapsx/place',
    'https://google.com.evil.example/maps/place/x',
    'ftp://maps.google.com/x',
    'http://127.0.0.1:8090/maps/place/x',
  ])('refuses %s on the real site', (url) => {
    expect(isMapsUrl(new URL(url), real)).toBe(false);
  });

  it("accepts any URL on the service's own maps origin (the simulator), and Google Maps URLs beside it", () => {
    expect(isMapsUrl(new URL('http://127.0.0.1:8090/anything?x=1'), sim)).toBe(true);
    expect(isMapsUrl(new URL('https://www.google.com/maps/place/x'), sim)).toBe(true);
    expect(isMapsUrl(new URL('http://127.0.0.1:8091/maps/place/x'), sim)).toBe(false);
  });

  it('answers VALIDATION_FAILED naming the url field', () => {
    expect(() => assertMapsUrl('https://evil.example/maps/place/x', real, 'mp-maps')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', field: 'url' }),
    );
    expect(() => assertMapsUrl('not a url', real, 'mp-maps')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', field: 'url' }),
    );
  });
});
