import { TrawlError, type ErrorCode } from '@trawl/contracts';

/** The walls an upstream puts up instead of its page, as the parsers' classifiers name them. */
export const WALL_KINDS = [
  'enable-JavaScript wall',
  'consent interstitial',
  'JavaScript challenge',
  'unusual-traffic page',
  'captcha page',
  'throttling page',
] as const;
export type WallKind = (typeof WALL_KINDS)[number];

/** Walls a real browser gets past (it runs the scripts, it sends the consent cookie); the others it does not. */
const BROWSER_PASSES: ReadonlySet<WallKind> = new Set([
  'enable-JavaScript wall',
  'consent interstitial',
  'JavaScript challenge',
]);

const WALL_PATTERNS: [RegExp, WallKind][] = [
  [/enable-?javascript|enablejs|asked for javascript/i, 'enable-JavaScript wall'],
  [/consent/i, 'consent interstitial'],
  [/javascript challenge|\bchallenge\b/i, 'JavaScript challenge'],
  [/unusual[- ]traffic/i, 'unusual-traffic page'],
  [/captcha|robot check/i, 'captcha page'],
];

/** The parsers' wall kinds (`UpstreamWallError.wall` of @trawl/parsers) by the name this lib gives them. */
const WALL_BY_KIND: Readonly<Record<string, WallKind>> = {
  'enable-javascript': 'enable-JavaScript wall',
  consent: 'consent interstitial',
  'javascript-challenge': 'JavaScript challenge',
  'unusual-traffic': 'unusual-traffic page',
  throttling: 'throttling page',
};

/**
 * The wall an UPSTREAM_BLOCKED error names, if any: the classifier's own `wall` kind when it carries one (the
 * parsers' UpstreamWallError; read by shape, this lib does not depend on the parsers), else its message's wording.
 */
export function wallNamed(error: unknown): WallKind | undefined {
  if (!(error instanceof TrawlError) || error.code !== 'UPSTREAM_BLOCKED') return undefined;
  const kind = (error as TrawlError & { wall?: unknown }).wall;
  if (typeof kind === 'string' && WALL_BY_KIND[kind]) return WALL_BY_KIND[kind];
  return WALL_PATTERNS.find(([re]) => re.test(error.message))?.[1];
}

/**
 * True when plain HTTP's failure says a browser may get the page: a wall a browser passes (JavaScript, consent,
 * JavaScript challenge), or a page without the content the parser needs (PAGE_NOT_RECOGNISED: an app shell, a page
 * written by script). A captcha, an "unusual traffic" page, a 429/503, a timeout or a refused URL do not: a browser
 * would meet the same answer, or there is no time left for it.
 */
export function browserMayPass(error: unknown): boolean {
  if (!(error instanceof TrawlError)) return false;
  if (error.code === 'PAGE_NOT_RECOGNISED') return true;
  const wall = wallNamed(error);
  return wall !== undefined && BROWSER_PASSES.has(wall);
}

/** One engine's try and what stopped it. */
export interface EngineAttempt {
  engine: 'http' | 'browser';
  error: unknown;
  /** Set when the engine was not tried, e.g. "skipped: host remembered as needing a browser". */
  note?: string;
}

/**
 * Codes from the most telling to the least: the combined error takes the first any attempt has. What the upstream
 * said comes before our own fleet's state (a fleet that is busy or not deployed says nothing about the page).
 */
const CODE_RANK: ErrorCode[] = [
  'URL_NOT_ALLOWED',
  'UPSTREAM_BLOCKED',
  'UPSTREAM_NOT_FOUND',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_ERROR',
  'PAGE_NOT_RECOGNISED',
  'OVERLOADED',
  'SERVICE_UNAVAILABLE',
];

function asTrawlError(e: unknown): TrawlError {
  if (e instanceof TrawlError) return e;
  return new TrawlError('INTERNAL', e instanceof Error ? e.message : String(e), { cause: e });
}

/** `http: enable-JavaScript wall` (a named wall), else the engine and the error's message. */
export function describeAttempt(a: EngineAttempt): string {
  const wall = wallNamed(a.error);
  return `${a.engine}: ${wall ?? asTrawlError(a.error).message}`;
}

/**
 * One TrawlError for every engine that failed: the message names each engine and what stopped it
 * (`http: enable-JavaScript wall; browser: unusual-traffic page`), the code is the most telling of theirs
 * (UPSTREAM_BLOCKED when any engine was blocked), retryable when any of them was.
 */
export function combineAttempts(attempts: EngineAttempt[]): TrawlError {
  const errors = attempts.map((a) => asTrawlError(a.error));
  const rank = (code: ErrorCode) => {
    const i = CODE_RANK.indexOf(code);
    return i < 0 ? CODE_RANK.length : i;
  };
  const telling = errors.reduce((best, e) => (rank(e.code) < rank(best.code) ? e : best));
  const message = attempts.map((a) => (a.note ? `${a.engine}: ${a.note}` : describeAttempt(a))).join('; ');
  return new TrawlError(telling.code, message, {
    retryable: errors.some((e) => e.retryable),
    ...(telling.field ? { field: telling.field } : {}),
    cause: errors[errors.length - 1],
  });
}
