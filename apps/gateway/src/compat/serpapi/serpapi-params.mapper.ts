import { TrawlError } from '@trawl/contracts';
import { ENGINES, GOOGLE_MAPS_PARAMS, GOOGLE_PARAMS, type ParamRule, type SerpApiEngine } from './serpapi.constants.js';

export interface SerpApiMapping {
  engine: SerpApiEngine;
  /** The native request's fields (its DTO validates them). */
  native: Record<string, unknown>;
  /** The parameters as given (for `search_parameters`), the key left out. */
  given: Record<string, string>;
  warnings: string[];
}

/** The first value of a query parameter. */
function valueOf(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : undefined;
}

/** The engine asked for: `google` when absent (SerpAPI's default); another one is a 400. */
export function engineOf(query: Record<string, unknown>): SerpApiEngine {
  const engine = valueOf(query, 'engine') ?? 'google';
  if (!(ENGINES as readonly string[]).includes(engine)) {
    throw new TrawlError('VALIDATION_FAILED', `Unsupported \`${engine}\` search engine.`, { field: 'engine' });
  }
  return engine as SerpApiEngine;
}

/**
 * SerpAPI's query parameters onto the native request of their engine, by the engine's table: mapped ones copied
 * (numbers parsed), unsupported ones and unknown ones named in `warnings`. `api_key` is never copied anywhere.
 */
export function toNativeParams(query: Record<string, unknown>): SerpApiMapping {
  const engine = engineOf(query);
  const table: Readonly<Record<string, ParamRule>> = engine === 'google' ? GOOGLE_PARAMS : GOOGLE_MAPS_PARAMS;
  const mapping: SerpApiMapping = { engine, native: {}, given: {}, warnings: [] };
  for (const name of Object.keys(query)) {
    const value = valueOf(query, name);
    if (value === undefined || name === 'api_key') continue;
    mapping.given[name] = value;
    const rule = table[name];
    if (!rule) {
      mapping.warnings.push(`${name} is not a parameter Trawl knows; ignored`);
      continue;
    }
    if (rule.kind === 'unsupported') mapping.warnings.push(`${name}: ${rule.why}; ignored`);
    if (rule.kind !== 'mapped') continue;
    if (rule.number) {
      const n = Number(value);
      if (!Number.isSafeInteger(n)) {
        throw new TrawlError('VALIDATION_FAILED', `\`${name}\` must be a whole number.`, { field: name });
      }
      mapping.native[rule.native] = n;
    } else {
      mapping.native[rule.native] = value;
    }
  }
  if (mapping.given.engine === undefined) mapping.given.engine = engine;
  if (valueOf(query, 'output') !== undefined && valueOf(query, 'output') !== 'json') {
    throw new TrawlError('VALIDATION_FAILED', 'Trawl answers output=json only.', { field: 'output' });
  }
  if (valueOf(query, 'no_cache') === 'true') mapping.native.maxAge = 0;
  return mapping;
}
