import { decodeScrapeHtml, TrawlError, type ScrapeResult } from '@trawl/contracts';
import {
  FALLBACK_NATIVE_FORMAT,
  FORMAT_ALIASES,
  FORMATS,
  SCRAPE_OPTIONS,
  type FormatRule,
} from './firecrawl.constants.js';
import { applyOptions, clampScrapeNumbers, type Mapping } from './firecrawl-options.mapper.js';

/** A Firecrawl document (the `data` of a scrape; an entry of a batch's `data`). */
export interface FirecrawlDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: unknown;
  screenshot?: unknown;
  /** The `json` format's object (v1's `extract` format answers it as `extract`). */
  json?: unknown;
  extract?: unknown;
  summary?: string;
  metadata: FirecrawlMetadata;
  warning?: string;
}

export interface FirecrawlMetadata {
  title: string;
  description?: string;
  language?: string;
  sourceURL: string;
  url: string;
  statusCode: number;
  contentType?: string;
  error?: string;
  [extra: string]: unknown;
}

/** A native scrape request built from a Firecrawl body, the Firecrawl formats to answer, and the warnings. */
export interface ScrapeMapping extends Mapping {
  /** The formats asked for that Trawl answers, with their rules. */
  answered: { name: string; rule: Extract<FormatRule, { kind: 'mapped' }> }[];
}

const HANDLED = new Set(['url', 'formats']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The name of one Firecrawl format entry: a string (v1 and v2) or `{ type }` (v2). */
function formatName(entry: unknown): string {
  if (typeof entry === 'string') return entry;
  if (isRecord(entry) && typeof entry.type === 'string') {
    return entry.type === 'screenshot' && entry.fullPage === true ? 'screenshot@fullPage' : entry.type;
  }
  throw new TrawlError('VALIDATION_FAILED', 'formats must be a list of format names or { type } objects', {
    field: 'formats',
  });
}

const isJsonEntry = (entry: unknown): boolean => isRecord(entry) && entry.type === 'json';

/**
 * The native `{ type: 'json', schema, prompt }` of Firecrawl's json format (ADR 0029): v2's object entry as given, or
 * for v1's string `json` / `extract` the body's `jsonOptions` / `extract` (either, the format's own first).
 * `systemPrompt` is not taken (Trawl's system prompt keeps the page as data) and is named in the warnings.
 */
function jsonEntryOf(
  name: string,
  entry: unknown,
  options: Record<string, unknown>,
  mapping: Mapping,
  where: string,
): { type: 'json'; schema?: unknown; prompt?: unknown } {
  const optionsName = name === 'extract' ? 'extract' : 'jsonOptions';
  const source = isRecord(entry)
    ? entry
    : (options[optionsName] ?? options[name === 'extract' ? 'jsonOptions' : 'extract']);
  if (!isRecord(source)) {
    throw new TrawlError(
      'VALIDATION_FAILED',
      `${where}formats: ${name} needs a schema or a prompt (${where}${optionsName}: { schema, prompt })`,
      { field: `${where}formats` },
    );
  }
  const { type: _type, schema, prompt, ...rest } = source;
  void _type;
  const label = isRecord(entry) ? `format ${name}` : `${where}${optionsName}`;
  for (const key of Object.keys(rest)) {
    mapping.warnings.push(
      key === 'systemPrompt'
        ? `${label}.systemPrompt: Trawl uses its own system prompt; ignored`
        : `${label}.${key} is not an option Trawl knows; ignored`,
    );
  }
  return { type: 'json', ...(schema !== undefined ? { schema } : {}), ...(prompt !== undefined ? { prompt } : {}) };
}

/**
 * Firecrawl scrape options (the body of `/v2/scrape` or `/v1/scrape` without `url`, or a `scrapeOptions`) onto the
 * native scrape request. `defaultFormats` is Firecrawl's default (`['markdown']`); an empty list asks for no content.
 */
export function toNativeScrape(options: Record<string, unknown>, where = ''): ScrapeMapping {
  const mapping: ScrapeMapping = { native: {}, warnings: [], answered: [] };
  const requested = options.formats ?? ['markdown'];
  if (!Array.isArray(requested)) {
    throw new TrawlError('VALIDATION_FAILED', `${where}formats must be a list`, { field: `${where}formats` });
  }
  const nativeFormats: unknown[] = [];
  // Each format name with its entry as given (the object form of a screenshot keeps its options).
  const entries = new Map<string, unknown>(requested.map((entry: unknown) => [formatName(entry), entry]));
  for (const name of entries.keys()) {
    const rule = FORMATS[FORMAT_ALIASES[name] ?? name];
    if (!rule) {
      mapping.warnings.push(`format ${name} is not a format Trawl knows; ignored`);
    } else if (rule.kind === 'mapped') {
      mapping.answered.push({ name, rule });
      if (rule.llmJson) {
        // v1's `json` and `extract` both ask for the one native json entry.
        if (!nativeFormats.some(isJsonEntry))
          nativeFormats.push(jsonEntryOf(name, entries.get(name), options, mapping, where));
      } else if (rule.passEntry) nativeFormats.push(entries.get(name));
      else if (!nativeFormats.includes(rule.native)) nativeFormats.push(rule.native);
    } else if (rule.kind === 'pending') {
      mapping.warnings.push(`format ${name} is not supported by Trawl yet; ignored`);
    } else {
      mapping.warnings.push(`format ${name}: ${rule.why}; ignored`);
    }
  }
  mapping.native.formats = nativeFormats.length > 0 ? nativeFormats : [FALLBACK_NATIVE_FORMAT];
  applyOptions([SCRAPE_OPTIONS], options, mapping, HANDLED, where);
  clampScrapeNumbers(mapping, where);
  return mapping;
}

/** The Firecrawl document of a native scrape result: the formats asked for, and Firecrawl's metadata. */
export function fromNativeScrape(result: ScrapeResult, mapping: ScrapeMapping): FirecrawlDocument {
  const doc: FirecrawlDocument = { metadata: metadataOf(result) };
  const native = result as unknown as Record<string, unknown>;
  for (const { name, rule } of mapping.answered) {
    const value = native[rule.native];
    if (value === undefined) continue;
    const key = name === 'screenshot@fullPage' ? 'screenshot' : name;
    (doc as unknown as Record<string, unknown>)[key] =
      rule.decode === 'scrape-html' && typeof value === 'string' ? decodeScrapeHtml(value) : value;
  }
  if (result.actions) (doc as unknown as Record<string, unknown>).actions = result.actions;
  if (mapping.warnings.length > 0) doc.warning = mapping.warnings.join('; ');
  return doc;
}

/** Firecrawl's metadata from the native result's: what Trawl read (title, final URL, content type) and statuses. */
export function metadataOf(result: ScrapeResult): FirecrawlMetadata {
  // Whatever else the native metadata carries (description, language, ... as the scrape learns them) passes through.
  const {
    engine: _engine,
    contentType,
    title,
    url,
    ...rest
  } = result.metadata as ScrapeResult['metadata'] & Record<string, unknown>;
  void _engine;
  return {
    ...rest,
    title,
    sourceURL: result.sourceURL,
    url,
    statusCode: result.rawStatus,
    ...(contentType ? { contentType } : {}),
    scrapeId: result.taskId,
  };
}

/** The `warning` of an answer: the mapping's warnings, or none. */
export function warningOf(warnings: readonly string[]): { warning?: string } {
  return warnings.length > 0 ? { warning: warnings.join('; ') } : {};
}
