import { ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import {
  BROWSER_SCRAPE_LIMITS as L,
  SCRAPE_ACTION_TYPES,
  SCREENSHOT_FORMATS,
  type ScrapeAction,
} from './scrape-browser.types.js';
import { LLM_FORMAT_LIMITS, SUMMARY_FORMAT } from './llm-formats.types.js';

/** The request's engine names the plain HTTP client, which runs no page (the browser options cannot apply). */
function onHttpEngine(args: ValidationArguments): boolean {
  return (args.object as { engine?: unknown }).engine === 'http';
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;
const isInt = (v: unknown, min: number, max: number) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const only = (o: Obj, keys: string[]) => Object.keys(o).every((k) => keys.includes(k));

/** Why a screenshot's options are wrong, or undefined (shared by the format's object form and the action). */
function screenshotProblem(o: Obj): string | undefined {
  if (!only(o, ['type', 'fullPage', 'quality', 'viewport'])) return 'takes only fullPage, quality and viewport';
  if (o.fullPage !== undefined && typeof o.fullPage !== 'boolean') return 'fullPage must be a boolean';
  if (o.quality !== undefined && !isInt(o.quality, 1, 100)) return 'quality must be an integer 1-100';
  if (o.viewport !== undefined) {
    const v = o.viewport;
    if (
      !isObject(v) ||
      !only(v, ['width', 'height']) ||
      ![v.width, v.height].every((n) => isInt(n, L.minViewport, L.maxViewport))
    )
      return `viewport must be { width, height }, integers ${L.minViewport}-${L.maxViewport}`;
  }
  return undefined;
}

/** Why one action is wrong, or undefined. */
export function actionProblem(a: unknown): string | undefined {
  if (!isObject(a)) return 'must be an object with a type';
  if (!SCRAPE_ACTION_TYPES.includes(a.type as never))
    return `has an unknown type ${JSON.stringify(a.type)}: one of ${SCRAPE_ACTION_TYPES.join(', ')}`;
  const action = a as Obj & { type: ScrapeAction['type'] };
  switch (action.type) {
    case 'wait': {
      if (!only(action, ['type', 'milliseconds', 'selector'])) return '(wait) takes milliseconds or selector';
      const ms = action.milliseconds !== undefined;
      const sel = action.selector !== undefined;
      if (ms === sel) return '(wait) takes exactly one of milliseconds and selector';
      if (ms && !isInt(action.milliseconds, 1, LIMITS.maxWaitForMs))
        return `(wait) milliseconds must be an integer 1-${LIMITS.maxWaitForMs}`;
      if (sel && !isString(action.selector, L.maxSelectorLength)) return '(wait) selector must be a CSS selector';
      return undefined;
    }
    case 'click':
      if (!only(action, ['type', 'selector', 'all'])) return '(click) takes selector and all';
      if (!isString(action.selector, L.maxSelectorLength)) return '(click) selector must be a CSS selector';
      if (action.all !== undefined && typeof action.all !== 'boolean') return '(click) all must be a boolean';
      return undefined;
    case 'write':
      if (!only(action, ['type', 'text']) || typeof action.text !== 'string' || action.text.length > L.maxWriteLength)
        return `(write) takes text, a string of at most ${L.maxWriteLength} characters`;
      return undefined;
    case 'press':
      if (!only(action, ['type', 'key']) || !isString(action.key, L.maxKeyLength))
        return '(press) takes key, a key name such as Enter or ArrowDown';
      return undefined;
    case 'scroll':
      if (!only(action, ['type', 'direction', 'selector'])) return '(scroll) takes direction and selector';
      if (action.direction !== undefined && action.direction !== 'up' && action.direction !== 'down')
        return '(scroll) direction must be up or down';
      if (action.selector !== undefined && !isString(action.selector, L.maxSelectorLength))
        return '(scroll) selector must be a CSS selector';
      return undefined;
    case 'screenshot': {
      if (action.viewport !== undefined) return '(screenshot) takes fullPage and quality (the viewport is the page’s)';
      const problem = screenshotProblem(action);
      return problem ? `(screenshot) ${problem}` : undefined;
    }
    case 'scrape':
      return only(action, ['type']) ? undefined : '(scrape) takes no options';
    case 'executeJavascript':
      if (!only(action, ['type', 'script']) || !isString(action.script, L.maxScriptLength))
        return `(executeJavascript) takes script, at most ${L.maxScriptLength} characters`;
      return undefined;
  }
}

/** Why a list of actions is wrong, or undefined: each action, their number, and their total wait. */
export function actionsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be an array of actions';
  if (value.length > L.maxActions) return `holds ${value.length} actions, more than ${L.maxActions}`;
  for (const [i, a] of value.entries()) {
    const problem = actionProblem(a);
    if (problem) return `[${i}] ${problem}`;
  }
  const actions = value as ScrapeAction[];
  const waited = actions.reduce((n, a) => n + (a.type === 'wait' ? (a.milliseconds ?? 0) : 0), 0);
  if (waited > L.maxTotalWaitMs) return `wait ${waited} ms in all, more than ${L.maxTotalWaitMs}`;
  if (actions.filter((a) => a.type === 'scrape').length > L.maxScrapeActions)
    return `hold more than ${L.maxScrapeActions} scrape actions`;
  if (actions.filter((a) => a.type === 'screenshot').length > L.maxScreenshotActions)
    return `hold more than ${L.maxScreenshotActions} screenshot actions`;
  return undefined;
}

/** `actions`: Firecrawl's action shapes, bounded (BROWSER_SCRAPE_LIMITS); the browser engine only. */
@ValidatorConstraint({ name: 'isScrapeActions' })
export class IsScrapeActions implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return !onHttpEngine(args) && actionsProblem(value) === undefined;
  }

  defaultMessage(args: ValidationArguments): string {
    if (onHttpEngine(args)) return `${args.property} need the browser engine (engine is http)`;
    return `${args.property}${actionsProblem(args.value)?.replace(/^(?!\[)/, ' ') ?? ' are not valid'}`;
  }
}

/** Why a `json` format object is wrong, or undefined (ADR 0029): a schema, a prompt or both, bounded. */
function jsonFormatProblem(o: Obj): string | undefined {
  if (!only(o, ['type', 'schema', 'prompt'])) return 'takes only schema and prompt';
  if (o.schema === undefined && o.prompt === undefined) return 'needs a schema, a prompt or both';
  if (o.schema !== undefined) {
    if (!isObject(o.schema)) return 'schema must be a JSON Schema object';
    if (o.schema.type !== undefined && o.schema.type !== 'object')
      return 'schema must describe an object (type object)';
    if (JSON.stringify(o.schema).length > LLM_FORMAT_LIMITS.maxSchemaChars)
      return `schema must be at most ${LLM_FORMAT_LIMITS.maxSchemaChars} characters of JSON`;
  }
  if (o.prompt !== undefined && !isString(o.prompt, LLM_FORMAT_LIMITS.maxPromptChars))
    return `prompt must be a string of 1-${LLM_FORMAT_LIMITS.maxPromptChars} characters`;
  return undefined;
}

/**
 * Why a `formats` list is wrong, or undefined: names of `known`, screenshot strings, one screenshot object, and the
 * LLM formats (`summary`, `{ type: 'summary' }`, one `{ type: 'json', schema, prompt }`; ADR 0029).
 */
function formatsProblem(value: unknown, known: readonly string[], http: boolean, llm = true): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return 'must be a non-empty array';
  const names = [...known, ...SCREENSHOT_FORMATS, ...(llm ? [SUMMARY_FORMAT] : [])];
  let screenshots = 0;
  const seen = new Set<string>();
  for (const [i, f] of value.entries()) {
    if (typeof f === 'string') {
      if (f === 'json' && llm) return `[${i}] json must be { type: 'json', schema, prompt }`;
      if (!names.includes(f))
        return `must contain only: ${names.join(', ')}, ${llm ? 'a screenshot or a json object' : 'or a screenshot object'}`;
      if (seen.has(f)) return `[${i}] repeats ${f}`;
      seen.add(f);
      if (f.startsWith('screenshot')) screenshots++;
    } else if (isObject(f) && f.type === 'screenshot') {
      const problem = screenshotProblem(f);
      if (problem) return `[${i}] (screenshot) ${problem}`;
      screenshots++;
    } else if (llm && isObject(f) && (f.type === 'json' || f.type === SUMMARY_FORMAT)) {
      const problem = f.type === 'json' ? jsonFormatProblem(f) : only(f, ['type']) ? undefined : 'takes no options';
      if (problem) return `[${i}] (${f.type}) ${problem}`;
      if (seen.has(f.type)) return `[${i}] repeats ${f.type}`;
      seen.add(f.type);
    } else
      return `[${i}] must be a format name or { type: ${llm ? "'screenshot' | 'json' | 'summary'" : "'screenshot'"}, ... }`;
  }
  if (screenshots > 1) return 'may ask for one screenshot';
  if (screenshots > 0 && http) return 'screenshot needs the browser engine (engine is http)';
  return undefined;
}

/** The second argument of IsScrapeFormats: `llm: false` leaves out the formats a language model answers. */
export interface ScrapeFormatsRule {
  llm?: boolean;
}

/**
 * `formats`: the names of SCRAPE_FORMATS (given as the constraint's argument), `screenshot`,
 * `screenshot@fullPage`, or Firecrawl's object form `{ type: 'screenshot', fullPage, quality, viewport }` (one
 * screenshot at most; the browser engine only), and the LLM formats unless the second argument says `llm: false`.
 */
@ValidatorConstraint({ name: 'isScrapeFormats' })
export class IsScrapeFormats implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return this.problem(value, args) === undefined;
  }

  private problem(value: unknown, args: ValidationArguments): string | undefined {
    const rule = (args.constraints[1] as ScrapeFormatsRule | undefined) ?? {};
    return formatsProblem(value, args.constraints[0] as string[], onHttpEngine(args), rule.llm ?? true);
  }

  defaultMessage(args: ValidationArguments): string {
    const problem = this.problem(args.value, args);
    return `${args.property}${problem?.replace(/^(?!\[)/, ' ') ?? ' are not valid'}`;
  }
}

/** Why a `location` is wrong, or undefined. */
function locationProblem(value: unknown): string | undefined {
  if (!isObject(value) || !only(value, ['country', 'languages'])) return 'must be { country, languages }';
  if (value.country !== undefined && (typeof value.country !== 'string' || !/^[A-Za-z]{2}$/.test(value.country)))
    return 'country must be a two-letter country code such as US';
  if (value.languages !== undefined) {
    const l = value.languages;
    if (
      !Array.isArray(l) ||
      l.length > L.maxLanguages ||
      !l.every((x) => typeof x === 'string' && /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/.test(x))
    )
      return `languages must be at most ${L.maxLanguages} language codes such as en-US or de`;
  }
  return undefined;
}

/** `location`: `{ country, languages }`; the browser engine only. */
@ValidatorConstraint({ name: 'isScrapeLocation' })
export class IsScrapeLocation implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return !onHttpEngine(args) && locationProblem(value) === undefined;
  }

  defaultMessage(args: ValidationArguments): string {
    if (onHttpEngine(args)) return `${args.property} needs the browser engine (engine is http)`;
    return `${args.property} ${locationProblem(args.value) ?? 'is not valid'}`;
  }
}

/** `mobile: true` needs the browser engine. */
@ValidatorConstraint({ name: 'isBrowserOnlyFlag' })
export class IsBrowserOnlyFlag implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return typeof value === 'boolean' && !(value && onHttpEngine(args));
  }

  defaultMessage(args: ValidationArguments): string {
    if (typeof args.value !== 'boolean') return `${args.property} must be a boolean`;
    return `${args.property} needs the browser engine (engine is http)`;
  }
}

/** A scrape's `headers` may not set `Host` (the request goes to the URL's host; a Host header would say another). */
@ValidatorConstraint({ name: 'hasNoHostHeader' })
export class HasNoHostHeader implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return !isObject(value) || !Object.keys(value).some((k) => k.toLowerCase() === 'host');
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} may not set Host (the page is asked of its URL's host)`;
  }
}
