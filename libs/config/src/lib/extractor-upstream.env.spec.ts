import { describe, expect, it } from '@jest/globals';
import { ExtractorMapsEnv } from './extractor-maps.env.js';
import { ExtractorRetailEnv } from './extractor-retail.env.js';
import { ExtractorSearchEnv } from './extractor-search.env.js';
import { loadEnv } from './load-env.js';

describe('extractor env classes', () => {
  it('default to the real sites, no proxies, and 10 results a search page', () => {
    expect(loadEnv(ExtractorSearchEnv, {})).toMatchObject({
      SEARCH_BASE_URL: 'https://www.google.com',
      SEARCH_PAGE_SIZE: 10,
      PROXY_URLS: [],
      PROXY_COOLDOWN_MS: 300_000,
      METRICS_PORT: 9464,
    });
    expect(loadEnv(ExtractorMapsEnv, {}).MAPS_BASE_URL).toBe('https://www.google.com');
    expect(loadEnv(ExtractorRetailEnv, {}).RETAIL_BASE_URL).toBe('https://www.amazon.com');
  });

  it('take the simulator as base URL and a list of proxies', () => {
    const env = loadEnv(ExtractorSearchEnv, {
      SEARCH_BASE_URL: 'http://127.0.0.1:8090',
      SEARCH_PAGE_SIZE: '100',
      PROXY_URLS: 'http://u:p@10.0.0.1:3128, http://10.0.0.2:3128',
    });
    expect(env).toMatchObject({
      SEARCH_BASE_URL: 'http://127.0.0.1:8090',
      SEARCH_PAGE_SIZE: 100,
      PROXY_URLS: ['http://u:p@10.0.0.1:3128', 'http://10.0.0.2:3128'],
    });
  });

  it('name a bad page size, base URL or proxy list', () => {
    expect(() => loadEnv(ExtractorSearchEnv, { SEARCH_PAGE_SIZE: '20' })).toThrow(/SEARCH_PAGE_SIZE/);
    expect(() => loadEnv(ExtractorMapsEnv, { MAPS_BASE_URL: 'www.google.com' })).toThrow(/MAPS_BASE_URL/);
    expect(() => loadEnv(ExtractorRetailEnv, { PROXY_URLS: 'socks://x' })).toThrow(/PROXY_URLS/);
  });

  it('default every upstream to the auto engine with a 10-minute browser memory, and name a bad engine', () => {
    expect(loadEnv(ExtractorSearchEnv, {})).toMatchObject({
      SEARCH_ENGINE: 'auto',
      UPSTREAM_BROWSER_MEMORY_MS: 600_000,
    });
    expect(loadEnv(ExtractorMapsEnv, { MAPS_ENGINE: 'browser' }).MAPS_ENGINE).toBe('browser');
    expect(loadEnv(ExtractorRetailEnv, { RETAIL_ENGINE: 'http' }).RETAIL_ENGINE).toBe('http');
    expect(() => loadEnv(ExtractorRetailEnv, { RETAIL_ENGINE: 'curl' })).toThrow(/RETAIL_ENGINE must be one of/);
    expect(() => loadEnv(ExtractorSearchEnv, { UPSTREAM_BROWSER_MEMORY_MS: '-1' })).toThrow(
      /UPSTREAM_BROWSER_MEMORY_MS/,
    );
  });
});
