import { LIMITS } from '@trawl/contracts';
import { CACHE_FIELDS_OFF_THE_SYNC_PATH, type OptionRule } from './firecrawl.constants.js';

/** The native request being built, and what the caller is told Trawl did not do. */
export interface Mapping {
  native: Record<string, unknown>;
  warnings: string[];
}

/**
 * Applies one of the option tables to a Firecrawl body: a mapped option is copied onto its native field; a pending or
 * unsupported option that asks for something is named in `warnings`; an inert one is dropped; a field no table knows
 * is named too (never dropped silently). `skip` lists the fields the route handles itself (url, formats, ...).
 */
export function applyOptions(
  tables: readonly Readonly<Record<string, OptionRule>>[],
  body: Record<string, unknown>,
  mapping: Mapping,
  skip: ReadonlySet<string>,
  where = '',
): void {
  for (const [name, value] of Object.entries(body)) {
    if (skip.has(name) || value === undefined) continue;
    const rule = tables.find((t) => Object.hasOwn(t, name))?.[name];
    const field = `${where}${name}`;
    if (!rule) {
      mapping.warnings.push(`${field} is not an option Trawl knows; ignored`);
      continue;
    }
    switch (rule.kind) {
      case 'mapped': {
        const native = rule.convert ? rule.convert(value) : value;
        if (native !== undefined) mapping.native[rule.native] = native;
        break;
      }
      case 'pending':
        if (value !== null) mapping.warnings.push(`${field} is not supported by Trawl yet; ignored`);
        break;
      case 'unsupported':
        if ((rule.asks ?? ((v: unknown) => v !== null))(value)) mapping.warnings.push(`${field}: ${rule.why}; ignored`);
        break;
      case 'inert':
        break;
    }
  }
}

/** Keeps a numeric native field within Trawl's bounds, saying so when it had to. */
export function clampNative(mapping: Mapping, field: string, min: number, max: number, label: string = field): void {
  const value = mapping.native[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) return;
  const clamped = Math.min(max, Math.max(min, Math.round(value)));
  if (clamped !== value) {
    mapping.warnings.push(`${label} ${value} is outside Trawl's range ${min}-${max}; ${clamped} was used`);
    mapping.native[field] = clamped;
  }
}

/** Bounds every numeric scrape field Firecrawl allows wider than Trawl does: timeout, waitFor, maxAge. */
export function clampScrapeNumbers(mapping: Mapping, where = ''): void {
  clampNative(mapping, 'timeout', LIMITS.minTimeoutMs, LIMITS.maxTimeoutMs, `${where}timeout`);
  clampNative(mapping, 'waitFor', 0, LIMITS.maxWaitForMs, `${where}waitFor`);
  clampNative(mapping, 'maxAge', 0, LIMITS.maxCacheAgeMs, `${where}maxAge`);
}

/**
 * Scrape options for a path that never reads or fills the result cache (a batch's or a crawl's pages, ADR 0039): the
 * options without the cache fields, and the warnings those fields earn (CACHE_FIELDS_OFF_THE_SYNC_PATH), `where` before
 * each name.
 */
export function withoutCacheFields(
  options: Record<string, unknown>,
  where = '',
): { options: Record<string, unknown>; warnings: string[] } {
  const rest: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [field, value] of Object.entries(options)) {
    if (!Object.hasOwn(CACHE_FIELDS_OFF_THE_SYNC_PATH, field)) rest[field] = value;
    else {
      const warning = CACHE_FIELDS_OFF_THE_SYNC_PATH[field](value);
      if (warning) warnings.push(`${where}${warning}`);
    }
  }
  return { options: rest, warnings };
}
