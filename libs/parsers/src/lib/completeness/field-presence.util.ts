// Which fields of a parsed record are filled. One definition serves three uses: the published completeness table
// (tools/upstream-simulator/src/completeness), the per-field presence counters each extractor exports
// (trawl_parse_field_present_total{parser,field}) and the optional `meta` block naming the fields left empty.
import { RESULT_PARSERS, type ResultMeta } from '@trawl/contracts';

/** The parsers whose output is measured (also the `parser` label of the presence metrics). */
export const PARSER_NAMES = RESULT_PARSERS;
export type ParserName = (typeof PARSER_NAMES)[number];

/** The version of the parsers' output, named in results' `meta` block: bump it when a record's reading changes. */
export const PARSER_VERSION = '2026.11.1';

/** Keys that describe the request, not the page: never counted. */
const NOT_PAGE_FIELDS = new Set(['searchParameters', 'search_metadata', 'url', 'meta']);

/**
 * Whether a value carries something: not null/undefined, not '' (nor `'[]'`, the maps `about` when empty), not an
 * empty list or object, not 0 (the parsers' default for a rating, count or coordinate they did not find). Booleans
 * always count: false is an answer.
 */
export function isFilled(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'string') return v.trim() !== '' && v !== '[]';
  if (typeof v === 'number') return v !== 0 && Number.isFinite(v);
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function isRecordList(v: unknown): v is Record<string, unknown>[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x));
}

/** The record a parser returned, without its wrapper: a maps search's `organicResults` items are the places. */
function fieldsRoot(record: unknown): Record<string, unknown> {
  return record !== null && typeof record === 'object' ? (record as Record<string, unknown>) : {};
}

/**
 * Presence of each field of a record: top-level keys, and `list[].key` for the keys of a list of objects (present
 * when every item has it). The field list follows the record, so a new field is measured without a change here.
 */
export function fieldPresence(record: unknown): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [key, value] of Object.entries(fieldsRoot(record))) {
    if (NOT_PAGE_FIELDS.has(key)) continue;
    out[key] = isFilled(value);
    if (isRecordList(value)) {
      const keys = new Set(value.flatMap((item) => Object.keys(item)));
      for (const sub of keys) out[`${key}[].${sub}`] = value.every((item) => isFilled(item[sub]));
    }
  }
  return out;
}

/** The fields of a record left empty, in order (for the optional `meta` block of a result). */
export function emptyFields(record: unknown): string[] {
  return Object.entries(fieldPresence(record))
    .filter(([, present]) => !present)
    .map(([field]) => field);
}

export interface FieldRate {
  filled: number;
  pages: number;
  rate: number;
}

/** Per field, how many of the records filled it (a field absent from a record counts as not filled). */
export function completeness(records: readonly unknown[]): Record<string, FieldRate> {
  const presences = records.map(fieldPresence);
  const fields = [...new Set(presences.flatMap((p) => Object.keys(p)))].sort();
  const out: Record<string, FieldRate> = {};
  for (const field of fields) {
    const filled = presences.filter((p) => p[field]).length;
    out[field] = { filled, pages: records.length, rate: records.length ? filled / records.length : 0 };
  }
  return out;
}

/** Which parser a record comes from, by its shape (the wire records differ in their own keys). */
export function recordKind(record: unknown): ParserName | undefined {
  if (record === null || typeof record !== 'object') return undefined;
  const r = record as Record<string, unknown>;
  if (Array.isArray(r['results']) && 'location' in r) return 'search';
  if (Array.isArray(r['organicResults'])) return 'maps-search';
  if ('mp_company_name' in r) return 'maps-place';
  if ('asin' in r && 'best_sellers_rank' in r) return 'retail';
  return undefined;
}

/** A record's parser and field presence (what the extractors' presence counters count); undefined for others. */
export function classifyRecord(record: unknown): { parser: ParserName; presence: Record<string, boolean> } | undefined {
  const parser = recordKind(record);
  return parser ? { parser, presence: fieldPresence(record) } : undefined;
}

/** The record with its `meta` block (parser, version, fields left empty), for a request that asked for it. */
export function withResultMeta<T extends object>(record: T, requested: boolean | undefined): T {
  if (!requested) return record;
  const parser = recordKind(record);
  if (!parser) return record;
  const { meta: _previous, ...rest } = record as T & { meta?: unknown };
  const meta: ResultMeta = { parser, parserVersion: PARSER_VERSION, emptyFields: emptyFields(rest) };
  return { ...record, meta };
}
