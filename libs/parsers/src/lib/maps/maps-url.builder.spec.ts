import { describe, expect, it } from '@jest/globals';
import { buildMapsSearchUrl, parseLl } from './maps-url.builder.js';

describe('parseLl', () => {
  it('reads latitude, longitude and zoom with or without the leading @', () => {
    expect(parseLl('@46.423669,-122.176129,3z')).toEqual({ latitude: 46.423669, longitude: -122.176129, zoom: 3 });
    expect(parseLl('37.98,23.72,14.5z')).toEqual({ latitude: 37.98, longitude: 23.72, zoom: 14.5 });
  });

  it('rejects other shapes and out-of-range values', () => {
    expect(parseLl('37.98,23.72')).toBeUndefined();
    expect(parseLl('95,23.72,3z')).toBeUndefined();
    expect(parseLl('10,200,3z')).toBeUndefined();
    expect(parseLl(undefined)).toBeUndefined();
  });
});

describe('buildMapsSearchUrl', () => {
  it('builds the tbm=map endpoint with the query, language and a pb carrying viewport, page size and offset', () => {
    const url = new URL(
      buildMapsSearchUrl('https://www.google.com', {
        q: 'coffee & cake',
        ll: '@37.98,23.72,14z',
        hl: 'el',
        gl: 'gr',
        num: 40,
        start: 20,
      }),
    );
    expect(url.origin + url.pathname).toBe('https://www.google.com/search');
    expect(url.searchParams.get('tbm')).toBe('map');
    expect(url.searchParams.get('q')).toBe('coffee & cake');
    expect(url.searchParams.get('hl')).toBe('el');
    expect(url.searchParams.get('gl')).toBe('gr');
    const pb = url.searchParams.get('pb') ?? '';
    expect(pb).toContain('!2d23.72!3d37.98');
    expect(pb).toContain('!7i40!8i20');
    expect(Number(/!1d([\d.]+)/.exec(pb)?.[1])).toBeGreaterThan(0);
  });

  it('defaults to a first page of 20 and keeps a base path', () => {
    const url = buildMapsSearchUrl('http://127.0.0.1:4010/google', { q: 'x', ll: '1,2,3z', hl: 'en' });
    expect(url.startsWith('http://127.0.0.1:4010/google/search?')).toBe(true);
    expect(new URL(url).searchParams.get('pb')).toContain('!7i20!8i0');
  });

  it('zooming in lowers the camera altitude', () => {
    const alt = (ll: string): number =>
      Number(
        /!1d([\d.]+)/.exec(
          new URL(buildMapsSearchUrl('https://g.test', { q: 'x', ll, hl: 'en' })).searchParams.get('pb') ?? '',
        )?.[1],
      );
    expect(alt('10,10,15z')).toBeLessThan(alt('10,10,10z'));
  });
});
