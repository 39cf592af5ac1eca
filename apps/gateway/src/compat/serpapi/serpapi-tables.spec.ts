import { describe, expect, it } from '@jest/globals';
import { ERROR_CODES, TrawlError } from '@trawl/contracts';
import { toErrorEnvelope } from '../../envelope/error-envelope.mapper.js';
import { ERROR_STATUS, GOOGLE_MAPS_PARAMS, GOOGLE_PARAMS, INVALID_KEY_MESSAGE } from './serpapi.constants.js';
import { toSerpApiError } from './serpapi-error.mapper.js';
import { engineOf, toNativeParams } from './serpapi-params.mapper.js';

describe('SerpAPI translation tables', () => {
  it('maps engine=google parameters onto the native web search, numbers parsed, the key left out', () => {
    const m = toNativeParams({ engine: 'google', q: 'x', num: '20', start: '10', api_key: 'k', source: 'nodejs' });
    expect(m.native).toEqual({ q: 'x', num: 20, start: 10 });
    expect(m.given).toEqual({ engine: 'google', q: 'x', num: '20', start: '10', source: 'nodejs' });
    expect(m.warnings).toEqual([]);
  });

  it('defaults the engine to google and refuses an engine Trawl does not answer', () => {
    expect(engineOf({})).toBe('google');
    expect(() => engineOf({ engine: 'bing' })).toThrow(TrawlError);
  });

  it('no_cache=true asks for a fresh answer (maxAge 0); output other than json is refused', () => {
    expect(toNativeParams({ q: 'x', no_cache: 'true' }).native.maxAge).toBe(0);
    expect(() => toNativeParams({ q: 'x', output: 'html' })).toThrow('output=json');
  });

  it('names unsupported and unknown parameters of each engine in warnings', () => {
    for (const [engine, table] of [
      ['google', GOOGLE_PARAMS],
      ['google_maps', GOOGLE_MAPS_PARAMS],
    ] as const) {
      for (const [name, rule] of Object.entries(table)) {
        if (rule.kind !== 'unsupported') continue;
        expect(toNativeParams({ engine, [name]: 'v' }).warnings.join()).toContain(name);
      }
      expect(toNativeParams({ engine, zzz: '1' }).warnings).toEqual(['zzz is not a parameter Trawl knows; ignored']);
    }
  });

  it('a non-numeric num is a 400 naming it', () => {
    expect(() => toNativeParams({ q: 'x', num: 'ten' })).toThrow('`num` must be a whole number.');
  });

  it('answers every native error code with a SerpAPI status (no 502 or 504) and {error} text', () => {
    for (const code of ERROR_CODES) {
      const { status, body } = toSerpApiError(toErrorEnvelope(new TrawlError(code, `m ${code}`), 'r'));
      expect(status).toBe(ERROR_STATUS[code]);
      expect([400, 401, 403, 404, 429, 500, 503]).toContain(status);
      expect(body).toEqual({ error: code === 'UNAUTHORIZED' ? INVALID_KEY_MESSAGE : `m ${code}` });
    }
  });
});
