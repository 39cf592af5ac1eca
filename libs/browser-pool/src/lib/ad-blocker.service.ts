import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FiltersEngine, Request, type RequestType } from '@ghostery/adblocker';

/**
 * The categories of Ghostery's tracker database (@ghostery/trackerdb) whose requests `blockAds` refuses: ads and
 * trackers, as Firecrawl's blockAds. Every other category loads: hosting (CDNs, fonts), audio_video_player,
 * social_media (embedded posts), customer_interaction (chat, forms), consent, utilities (tag managers, captchas),
 * misc, extensions. ADR 0030.
 */
export const AD_BLOCK_CATEGORIES = ['advertising', 'site_analytics', 'pornvertising'] as const;

/** Where Debian's `webext-ublock-origin-chromium` puts the EasyList-project lists it ships (kept current by apt). */
export const UBLOCK_LISTS_DIR = '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist';

/**
 * The filter lists (EasyList syntax) loaded beside the tracker database by default: EasyList, ads' network rules and
 * element-hiding rules. EasyPrivacy (`easyprivacy.txt` beside it) is not in the default: it blocks tag managers whole
 * (`||googletagmanager.com^`), which ADR 0030 lets load; trackers are the tracker database's part. ADR 0030.
 */
export const DEFAULT_FILTER_LISTS: readonly string[] = [join(UBLOCK_LISTS_DIR, 'easylist.txt')];

/** One request the browser is about to make. */
export interface AdRequest {
  url: string;
  /** The page it is made for (the tab's top-level document), which decides first and third party. */
  sourceUrl: string;
  /** The resource type, Playwright's (`script`, `xhr`) or CDP's (`Script`, `XHR`, `Ping`). */
  type: string;
  /** The tab's own navigation: never blocked (it is the page asked for). */
  mainFrame?: boolean;
}

export interface AdBlockerOptions {
  /**
   * The filter list, in Ghostery's trackerdb.txt format (`! trackerdb_id:<id> trackerdb_category:<c> trackerdb_filter`
   * or `trackerdb_domain` comment, then the filter). Default: the installed @ghostery/trackerdb's dist/trackerdb.txt.
   */
  list?: () => Promise<string>;
  /** Categories blocked (default AD_BLOCK_CATEGORIES). */
  categories?: readonly string[];
  /**
   * Filter list files in EasyList syntax, network and element-hiding rules, loaded into the same engine (default
   * DEFAULT_FILTER_LISTS). A file that cannot be read is left out (`unreadLists` names it); the rest still load.
   */
  filterLists?: readonly string[];
}

/** What the list gives, line by line: the comment that precedes each filter says its tracker, category and kind. */
interface ListEntry {
  tracker: string;
  category: string;
  kind: 'filter' | 'domain';
  filter: string;
}

/**
 * "Block this request?" for `blockAds`, by Ghostery's filter engine (@ghostery/adblocker) over Ghostery's maintained
 * tracker database, restricted to the ad and tracker categories (AD_BLOCK_CATEGORIES; see `selectFilters` for which
 * lines of the list are used), and the EasyList files of `filterLists`, whose element-hiding rules the engine holds
 * too (`serialize()` hands them to the digest's element hiding). The engine is built once per process on first
 * `ready()` (~0.9 s of CPU with EasyList; the serialized engine that trackerdb ships is of an older engine version
 * than the installed adblocker reads), so callers call `ready()` off the hot path (start-up) and `blocks()` is then a
 * synchronous lookup.
 */
export class AdBlocker {
  private engine?: FiltersEngine;
  private building?: Promise<FiltersEngine>;
  private readonly categories: ReadonlySet<string>;
  private unread: { path: string; error: string }[] = [];

  constructor(private readonly options: AdBlockerOptions = {}) {
    this.categories = new Set(options.categories ?? AD_BLOCK_CATEGORIES);
  }

  /** Builds the engine once (later calls share the first build); rejects when the list cannot be read. */
  ready(): Promise<void> {
    this.building ??= (async () => {
      const list = await (this.options.list ?? readTrackerDb)();
      const lists = (await this.readFilterLists()).map(extendedSyntaxOfUblock);
      const text = [selectFilters(parseTrackerDb(list), this.categories).join('\n'), ...lists].join('\n');
      const engine = FiltersEngine.parse(text, {
        loadCosmeticFilters: true,
        loadGenericCosmeticsFilters: true,
        // `:has-text()` rules are held for the digest's element hiding (which applies those it can read: ADR 0030);
        // `+js()` scriptlets are not run.
        loadExtendedSelectors: true,
        loadNetworkFilters: true,
        enableCompression: false,
      });
      this.engine = engine;
      return engine;
    })();
    this.building.catch(() => {
      this.building = undefined; // a failed read is tried again by the next caller
    });
    return this.building.then(() => undefined);
  }

  /**
   * The built engine, serialized (the page-work pool's threads deserialize it for element hiding, a few ms each,
   * rather than parse the lists again). Call after `ready()`.
   */
  serialize(): Uint8Array {
    if (!this.engine) throw new Error('AdBlocker.serialize() before ready()');
    return this.engine.serialize();
  }

  /** The filter list files that could not be read at the last build, each with why (empty when all loaded). */
  get unreadLists(): readonly { path: string; error: string }[] {
    return this.unread;
  }

  private async readFilterLists(): Promise<string[]> {
    const unread: { path: string; error: string }[] = [];
    const texts: string[] = [];
    for (const path of this.options.filterLists ?? DEFAULT_FILTER_LISTS) {
      try {
        texts.push(await readFile(path, 'utf8'));
      } catch (e) {
        unread.push({ path, error: e instanceof Error ? e.message : String(e) });
      }
    }
    this.unread = unread;
    return texts;
  }

  /** Whether the engine is built (`blocks` answers false until then). */
  get isReady(): boolean {
    return this.engine !== undefined;
  }

  /**
   * True when the request is an ad or a tracker of the blocked categories. The tab's own navigation and non-http(s)
   * URLs (data:, blob:) are never blocked; before `ready()` has finished nothing is.
   */
  blocks(request: AdRequest): boolean {
    const engine = this.engine;
    if (!engine || request.mainFrame) return false;
    if (!request.url.startsWith('http:') && !request.url.startsWith('https:')) return false;
    const type = requestType(request.type);
    return engine.match(Request.fromRawDetails({ url: request.url, sourceUrl: request.sourceUrl, type })).match;
  }
}

/**
 * A filter list's extended element-hiding rules in the syntax the engine reads, as uBlock Origin reads them: Adblock
 * Plus's `#?#` (and `#@?#`) rules as `##` (`#@#`), `:-abp-contains()` as `:has-text()`, `:-abp-has()` as `:has()`.
 * (The engine drops `#?#` lines, and so EasyList's text-matching rules, otherwise.) Other lines are left as written.
 */
export function extendedSyntaxOfUblock(list: string): string {
  if (!list.includes('#?#') && !list.includes('#@?#')) return list;
  return list
    .split('\n')
    .map((line) => {
      const m = /^([^#!]*)#(@?)\?#(.*)$/.exec(line);
      if (!m) return line;
      const selector = m[3].replaceAll(':-abp-contains(', ':has-text(').replaceAll(':-abp-has(', ':has(');
      return `${m[1]}#${m[2]}#${selector}`;
    })
    .join('\n');
}

/** The installed @ghostery/trackerdb's filter list (dist/trackerdb.txt beside its modules). */
async function readTrackerDb(): Promise<string> {
  const entry = fileURLToPath(import.meta.resolve('@ghostery/trackerdb'));
  return readFile(join(dirname(entry), '..', 'trackerdb.txt'), 'utf8');
}

/** The list's entries: each filter line with the `! trackerdb_id:... trackerdb_category:... kind` comment before it. */
export function parseTrackerDb(text: string): ListEntry[] {
  const entries: ListEntry[] = [];
  let meta: Omit<ListEntry, 'filter'> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('!')) {
      const tracker = /trackerdb_id:(\S+)/.exec(line)?.[1];
      const category = /trackerdb_category:(\S+)/.exec(line)?.[1];
      const kind = /\btrackerdb_(filter|domain)\b/.exec(line)?.[1] as ListEntry['kind'] | undefined;
      meta = tracker && category && kind ? { tracker, category, kind } : undefined;
      continue;
    }
    if (meta) entries.push({ ...meta, filter: line });
    meta = undefined;
  }
  return entries;
}

/**
 * The filters `blockAds` uses, from the list's entries of the blocked categories:
 * - every `trackerdb_filter` line as written (Ghostery marks with `$3p` those that hold for third parties only);
 * - every `trackerdb_domain` line (the tracker's whole domain) as a third-party rule (`$3p` added: a page of the
 *   tracker's own site loads its own scripts), except for a tracker one of whose domains also serves something the
 *   list files under a category that loads (google.com: accounts, maps; shopify.com: its CDN; bing.com: maps). Such a
 *   tracker is blocked by its filter lines only.
 */
export function selectFilters(entries: readonly ListEntry[], categories: ReadonlySet<string>): string[] {
  // Every host a loading category's filter names, and each of its parent domains (www.google.com: google.com, com).
  const underLoading = new Set<string>();
  for (const e of entries) {
    const host = hostOf(e.filter);
    if (!host || categories.has(e.category)) continue;
    for (let at = 0; at >= 0; at = host.indexOf('.', at + 1)) underLoading.add(at === 0 ? host : host.slice(at + 1));
  }
  const shared = new Set<string>();
  for (const e of entries) {
    if (e.kind !== 'domain' || !categories.has(e.category)) continue;
    const host = hostOf(e.filter);
    if (host && underLoading.has(host)) shared.add(e.tracker);
  }
  const filters: string[] = [];
  for (const e of entries) {
    if (!categories.has(e.category)) continue;
    if (e.kind === 'filter') filters.push(e.filter);
    else if (!shared.has(e.tracker)) filters.push(e.filter.includes('$') ? `${e.filter},3p` : `${e.filter}$3p`);
  }
  return filters;
}

/** The host a `||host^...` filter is anchored to, else undefined. */
function hostOf(filter: string): string | undefined {
  return /^\|\|([a-z0-9.-]+)/i.exec(filter)?.[1]?.toLowerCase();
}

/** A Playwright or CDP resource type as the engine names it; a frame's document is a sub_frame. */
function requestType(type: string): RequestType {
  const t = type.toLowerCase();
  if (t === 'document') return 'sub_frame';
  return (KNOWN_TYPES.has(t) ? t : 'other') as RequestType;
}

const KNOWN_TYPES = new Set([
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'texttrack',
  'xhr',
  'fetch',
  'prefetch',
  'eventsource',
  'websocket',
  'manifest',
  'signedexchange',
  'ping',
  'cspviolationreport',
  'preflight',
  'other',
]);
