// Small DOM helpers for the product-page readers. Text is read with scripts and styles already removed from the
// document, whitespace collapsed and Amazon's invisible direction marks (U+200E/U+200F) dropped.
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { parseLocaleRating } from '../locale/index.js';
import type { RetailPage } from './retail-page.reader.js';

/** Collapsed, trimmed text of a selection ('' when empty). */
export function textOf(el: Cheerio<AnyNode>): string {
  return clean(el.text());
}

export function clean(s: string | undefined): string {
  return (s ?? '')
    .replace(/[\u200e\u200f\u200b\u00ad]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first non-empty text among the selectors, tried in order (each selector's first match with text). */
export function firstText({ $, q }: RetailPage, selectors: readonly string[]): string | undefined {
  for (const sel of selectors) {
    for (const el of q(sel).toArray()) {
      const t = textOf($(el));
      if (t) return t;
    }
  }
  return undefined;
}

/** The first non-empty attribute value among the selectors. */
export function firstAttr({ $, q }: RetailPage, selectors: readonly string[], attr: string): string | undefined {
  for (const sel of selectors) {
    for (const el of q(sel).toArray()) {
      const v = clean($(el).attr(attr));
      if (v) return v;
    }
  }
  return undefined;
}

/** Parses `4.3 out of 5 stars`, `4,3 von 5 Sternen` → 4.3 (0..5), else null. */
export function parseRating(text: string | undefined): number | null {
  return parseLocaleRating(text) ?? null;
}

/** Parses `21,049 ratings`, `(3,605)`, `1.234 Sternebewertungen` → integer, else null. */
export function parseCount(text: string | undefined): number | null {
  const m = /\d[\d.,\s\u00a0\u202f]*/.exec(text ?? '');
  if (!m) return null;
  const n = Number(m[0].replace(/\D/g, ''));
  return Number.isFinite(n) ? n : null;
}

/** Unique, non-empty values in first-seen order. */
export function unique<T>(values: readonly T[], key: (v: T) => string = (v) => String(v)): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const v of values) {
    const k = key(v);
    if (!k || seen.has(k)) continue;
    seen.add(k);
    out.push(v);
  }
  return out;
}

/**
 * Finds `<name> : <JSON value>` (object or array) in script text, e.g. `'colorImages': { 'initial': [...] }` or
 * `"dimensionValuesDisplayData" : {...}`, and returns the balanced JSON text that follows. Strings are skipped
 * properly, so brackets inside them do not end the value early.
 */
export function jsonAfter(source: string, name: string, from = 0): string | undefined {
  const at = source.indexOf(name, from);
  if (at < 0) return undefined;
  let i = at + name.length;
  while (i < source.length && /[\s'":=]/.test(source[i])) i++;
  const open = source[i];
  if (open !== '{' && open !== '[') return undefined;
  let depth = 0;
  let quote: string | undefined;
  for (let j = i; j < source.length; j++) {
    const c = source[j];
    if (quote) {
      if (c === '\\') j++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return source.slice(i, j + 1);
    }
  }
  return undefined;
}

/** JSON.parse that answers undefined instead of throwing; also accepts single-quoted keys (`{ 'initial': ... }`). */
export function tryJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(text.replace(/'([A-Za-z_$][\w$]*)'\s*:/g, '"$1":'));
    } catch {
      return undefined;
    }
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
