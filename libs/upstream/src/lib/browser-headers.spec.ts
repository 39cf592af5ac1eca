import { describe, expect, it } from '@jest/globals';
import { acceptLanguage, browserHeaders } from './browser-headers.js';

describe('acceptLanguage', () => {
  it('puts the host language first and English after it', () => {
    expect(acceptLanguage('de')).toBe('de,en;q=0.9');
    expect(acceptLanguage('pt_BR')).toBe('pt-BR,pt;q=0.9,en;q=0.8');
    expect(acceptLanguage('en')).toBe('en-US,en;q=0.9');
    expect(acceptLanguage(undefined)).toBe('en-US,en;q=0.9');
    expect(acceptLanguage('en-GB')).toBe('en-GB,en;q=0.9');
  });
});

describe('browserHeaders', () => {
  it('marks a navigation with a referer as same-origin', () => {
    expect(browserHeaders({ referer: 'https://www.google.com/' })).toMatchObject({
      referer: 'https://www.google.com/',
      'sec-fetch-site': 'same-origin',
    });
    expect(browserHeaders()['sec-fetch-site']).toBe('none');
  });
});
