import { describe, expect, it } from '@jest/globals';
import { defaultIdentities } from '@trawl/browser-identity';
import { acceptLanguage, browserHeaders } from './browser-headers.builder.js';

describe('acceptLanguage', () => {
  it('puts the host language first and English after it', () => {
    expect(acceptLanguage('de')).toBe('de,en;q=0.9');
    expect(acceptLanguage('de', 'AT')).toBe('de-AT,de;q=0.9,en;q=0.8');
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

  it('takes the user agent and client hints from the one browser identity, whose version is not written in the code', () => {
    const identity = defaultIdentities().forLocale('de', 'DE');
    const headers = browserHeaders({ hl: 'de', gl: 'DE' });
    expect(headers['user-agent']).toBe(identity.userAgent);
    expect(headers['sec-ch-ua']).toBe(identity.clientHints['sec-ch-ua']);
    expect(headers['user-agent']).toContain(`Chrome/${defaultIdentities().version.split('.')[0]}.0.0.0`);
    expect(headers['sec-ch-ua']).toContain(`"Google Chrome";v="${defaultIdentities().version.split('.')[0]}"`);
    expect(headers['accept-language']).toBe('de-DE,de;q=0.9,en;q=0.8');
  });
});
