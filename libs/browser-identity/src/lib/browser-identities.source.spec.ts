import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { BrowserIdentities, navigationHeaders } from './browser-identities.source.js';
import { chromiumVersionOf, newestRecordedChrome, resolveChromeVersion } from './chrome-version.resolver.js';
import { localeIdentity, timezoneOf } from './locale-identity.factory.js';

describe('BrowserIdentities', () => {
  const identities = new BrowserIdentities({ version: '156.0.8078.79' });

  it('claims the given Chrome version in the user agent, client hints and userAgentData, and no HeadlessChrome', () => {
    const id = identities.create();
    expect(id.userAgent).toBe(
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    );
    expect(id.clientHints).toEqual({
      'sec-ch-ua': '"Not:A-Brand";v="8", "Chromium";v="156", "Google Chrome";v="156"',
      'sec-ch-ua-mobile': '?0',
      'sec-ch-ua-platform': '"Linux"',
    });
    expect(id.userAgentMetadata.fullVersionList).toContainEqual({ brand: 'Google Chrome', version: '156.0.8078.79' });
    expect(id.userAgentMetadata).toMatchObject({ platform: 'Linux', fullVersion: '156.0.8078.79', mobile: false });
    expect(JSON.stringify(id)).not.toMatch(/Headless/i);
  });

  it("gives the HTTP engines a navigation's headers from the same identity, with Accept-Language from hl/gl", () => {
    const id = identities.create({ hl: 'de', gl: 'DE' });
    const headers = navigationHeaders(id);
    expect(headers).toMatchObject({
      'user-agent': id.userAgent,
      'sec-ch-ua': id.clientHints['sec-ch-ua'],
      'sec-ch-ua-platform': '"Linux"',
      'accept-language': 'de-DE,de;q=0.9,en;q=0.8',
      'sec-fetch-site': 'none',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
      'accept-encoding': 'gzip, deflate, br',
    });
    expect(headers.accept).toMatch(/^text\/html/);
    expect(id.languages).toEqual(['de-DE', 'de', 'en']);
    expect(navigationHeaders(id, { referer: 'https://www.google.com/' })).toMatchObject({
      referer: 'https://www.google.com/',
      'sec-fetch-site': 'same-origin',
    });
  });

  it('makes a phone whose user agent, client hints, navigation headers and screen agree (mobile)', () => {
    const phone = identities.create({ mobile: true });
    expect(phone.userAgent).toMatch(/\(Linux; Android 10; K\) .* Chrome\/156\.0\.0\.0 Mobile Safari\/537\.36$/);
    expect(phone.userAgentMetadata).toMatchObject({ mobile: true, platform: 'Android', formFactors: ['Mobile'] });
    expect(phone.clientHints).toMatchObject({ 'sec-ch-ua-mobile': '?1', 'sec-ch-ua-platform': '"Android"' });
    expect(phone.navigation).toMatchObject({ 'user-agent': phone.userAgent, 'sec-ch-ua-mobile': '?1' });
    expect(phone.device).toMatchObject({ isMobile: true, hasTouch: true, viewport: { width: 412, height: 915 } });
    expect(identities.create().device).toBeUndefined();
  });

  it("takes a location's languages over hl, and its country's position only when asked to", () => {
    const de = identities.create({ gl: 'DE', languages: ['de-DE', 'de'], geolocate: true });
    expect(de).toMatchObject({
      locale: 'de-DE',
      languages: ['de-DE', 'de'],
      acceptLanguage: 'de-DE,de;q=0.9',
      timezoneId: 'Europe/Berlin',
      geolocation: { latitude: 52.52, longitude: 13.41 },
    });
    expect(identities.create({ gl: 'DE' }).geolocation).toBeUndefined();
    expect(identities.create({ gl: 'ZZ', geolocate: true }).geolocation).toBeUndefined();
  });

  it('keeps one identity per hl/gl for the process', () => {
    expect(identities.forLocale('fr', 'FR')).toBe(identities.forLocale('fr', 'FR'));
    expect(identities.forLocale('fr', 'FR').timezoneId).toBe('Europe/Paris');
  });

  it('refuses a version that is not one', () => {
    expect(() => new BrowserIdentities({ version: 'HeadlessChrome/156' })).toThrow(/not a Chrome version/);
  });
});

describe('Chrome version', () => {
  it("takes the installed Chromium's version, else header-generator's newest recorded Chrome", () => {
    expect(resolveChromeVersion('/nonexistent/chromium')).toEqual({
      version: newestRecordedChrome(),
      source: 'dataset',
    });
    expect(newestRecordedChrome()).toMatch(/^\d{3}\.0\.0\.0$/);
    if (existsSync('/usr/bin/chromium')) {
      expect(chromiumVersionOf('/usr/bin/chromium')).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(resolveChromeVersion('/usr/bin/chromium').source).toBe('chromium');
    }
  });
});

describe('localeIdentity', () => {
  it('follows hl and gl as a person there has them set', () => {
    expect(localeIdentity('de', 'DE')).toEqual({
      locale: 'de-DE',
      languages: ['de-DE', 'de', 'en'],
      acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
      timezoneId: 'Europe/Berlin',
    });
    expect(localeIdentity()).toMatchObject({
      locale: 'en-US',
      acceptLanguage: 'en-US,en;q=0.9',
      timezoneId: 'America/New_York',
    });
    expect(localeIdentity('pt_BR')).toMatchObject({
      locale: 'pt-BR',
      acceptLanguage: 'pt-BR,pt;q=0.9,en;q=0.8',
      timezoneId: 'America/Sao_Paulo',
    });
    expect(localeIdentity('de').acceptLanguage).toBe('de,en;q=0.9');
    expect(localeIdentity('en', 'GB')).toMatchObject({ locale: 'en-GB', timezoneId: 'Europe/London' });
    expect(localeIdentity('ja', 'JP').timezoneId).toBe('Asia/Tokyo');
  });

  it("takes a country's main zone, and UTC for an unknown code", () => {
    expect(timezoneOf('us')).toBe('America/New_York');
    expect(timezoneOf('AU')).toBe('Australia/Sydney');
    expect(timezoneOf('ZZ')).toBe('UTC');
  });
});
