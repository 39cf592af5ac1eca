// Helpers for the nested, index-addressed JSON arrays Google Maps embeds in its pages and returns from its endpoints.
import type { ScanMeter } from '../scan/scan-meter.types.js';
import { jsonLiteralEnd, parseJsonOrUndefined, readAssignedLiteral } from '../scan/script-text.util.js';

/** A value of such an array: anything JSON. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const XSSI_PREFIX = /^\s*\)\]\}'\s*/;

/** Removes the `)]}'` anti-JSON-hijacking prefix and a trailing `/*""*\/` marker. */
export function stripXssi(text: string): string {
  return text.replace(XSSI_PREFIX, '').replace(/\/\*""\*\/\s*$/, '');
}

export function hasXssiPrefix(text: string): boolean {
  return XSSI_PREFIX.test(text);
}

/** Parses JSON, returning undefined instead of throwing. */
export function tryParseJson(text: string, meter?: ScanMeter): Json | undefined {
  return parseJsonOrUndefined<Json>(text, meter);
}

/**
 * Parses a maps endpoint body: `)]}'` + JSON array, or the older wrapper object `{"c":0,"d":")]}'\n[...]"}` whose `d`
 * holds the same thing as a string.
 */
export function parseMapsJson(text: string, meter?: ScanMeter): Json | undefined {
  const parsed = tryParseJson(stripXssi(text), meter);
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && typeof parsed['d'] === 'string') {
    return tryParseJson(stripXssi(parsed['d']), meter);
  }
  return parsed;
}

/** Walks `path` through nested arrays; undefined as soon as a step is missing. */
export function at(value: Json | undefined, ...path: number[]): Json | undefined {
  let cur: Json | undefined = value;
  for (const i of path) {
    if (!Array.isArray(cur)) return undefined;
    cur = cur[i];
  }
  return cur === null ? undefined : cur;
}

export function str(value: Json | undefined, ...path: number[]): string | undefined {
  const v = at(value, ...path);
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

export function num(value: Json | undefined, ...path: number[]): number | undefined {
  const v = at(value, ...path);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function arr(value: Json | undefined, ...path: number[]): Json[] {
  const v = at(value, ...path);
  return Array.isArray(v) ? v : [];
}

/** Depth-first visit of every value; return false from `visit` to skip a subtree. */
export function walkJson(value: Json | undefined, visit: (v: Json) => boolean | void, depth = 0): void {
  if (value === undefined || depth > 60) return;
  if (visit(value) === false) return;
  if (Array.isArray(value)) {
    for (const child of value) walkJson(child, visit, depth + 1);
  } else if (value && typeof value === 'object') {
    for (const child of Object.values(value)) walkJson(child, visit, depth + 1);
  }
}

/**
 * Returns the JSON literal (array or object) that starts at `start` in `text`, matched by brackets and aware of
 * string literals; undefined when it does not close.
 */
export function sliceJsonLiteral(text: string, start: number): string | undefined {
  const end = jsonLiteralEnd(text, start);
  return end < 0 ? undefined : text.slice(start, end);
}

/**
 * The value assigned to `name` in an inline script (`name=[...]` or `name = {...}`), parsed. One pass over the page;
 * gives up at the first literal that does not close.
 */
export function readAssignedJson(html: string, name: string, meter?: ScanMeter): Json | undefined {
  return readAssignedLiteral<Json>(html, name, meter);
}

/** Every string inside `value` that is itself an XSSI-prefixed JSON document, parsed. */
export function embeddedJsonDocuments(value: Json | undefined, meter?: ScanMeter): Json[] {
  const out: Json[] = [];
  walkJson(value, (v) => {
    if (typeof v === 'string' && hasXssiPrefix(v)) {
      const parsed = parseJsonOrUndefined<Json>(stripXssi(v), meter);
      if (parsed !== undefined) out.push(parsed);
    }
  });
  return out;
}
