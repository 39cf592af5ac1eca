// Linear scans of a page's inline scripts: every character is visited a bounded number of times, and a scan gives
// up at the first script or literal that does not close (the rest of the page is inside it, for a browser too).
import type { ScanMeter } from './scan-meter.types.js';

const SCRIPT_OPEN = /<script\b/gi;
const SCRIPT_CLOSE = /<\/script\s*>/gi;

/**
 * The page without its `<script>…</script>` elements. An unclosed script runs to the end of the page (so a browser
 * reads it): the scan stops there instead of looking for a close tag again from every later `<script`.
 */
export function withoutScripts(html: string, meter?: ScanMeter): string {
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    SCRIPT_OPEN.lastIndex = from;
    const open = SCRIPT_OPEN.exec(html);
    if (!open) {
      parts.push(html.slice(from));
      if (meter) meter.chars += html.length - from;
      break;
    }
    parts.push(html.slice(from, open.index));
    SCRIPT_CLOSE.lastIndex = open.index + open[0].length;
    const close = SCRIPT_CLOSE.exec(html);
    if (!close) {
      if (meter) meter.chars += html.length - from;
      break;
    }
    const next = close.index + close[0].length;
    if (meter) meter.chars += next - from;
    from = next;
  }
  return parts.join('');
}

/**
 * Whether `re` matches the page without its scripts: `re.test(withoutScripts(html))`, for a pattern that reads only
 * the text it matches and the character after it (no anchors, no lookbehind). The markup between scripts is asked
 * first, in place: a match that ends before its stretch of markup does (so the character after it is the same once
 * the scripts are cut) is a match of the page without scripts. Only a page with none is cut and asked whole (a match
 * may span a cut). One pass: the first match ahead is kept until the markup passes it.
 */
export function matchesWithoutScripts(html: string, re: RegExp, meter?: ScanMeter): boolean {
  const ahead = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
  let match: RegExpExecArray | null | undefined;
  let from = 0;
  for (;;) {
    SCRIPT_OPEN.lastIndex = from;
    const open = SCRIPT_OPEN.exec(html);
    const end = open ? open.index : html.length;
    if (match === undefined || (match !== null && match.index < from)) {
      ahead.lastIndex = from;
      match = ahead.exec(html);
    }
    if (match === null) break;
    if (match.index + match[0].length < end) {
      if (meter) meter.chars += end;
      return true;
    }
    if (!open) break;
    SCRIPT_CLOSE.lastIndex = open.index + open[0].length;
    const close = SCRIPT_CLOSE.exec(html);
    if (!close) break;
    from = close.index + close[0].length;
  }
  if (meter) meter.chars += html.length;
  return re.test(withoutScripts(html, meter));
}

/**
 * Index just past the JSON literal (array or object) that starts at `start`, matched by brackets and aware of
 * double-quoted strings; -1 when it does not close. Iterative: nesting depth costs nothing.
 */
export function jsonLiteralEnd(text: string, start: number, meter?: ScanMeter): number {
  const open = text.charCodeAt(start);
  if (open !== 0x5b && open !== 0x7b) return -1;
  let depth = 0;
  let inString = false;
  let i = start;
  const n = text.length;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) {
        if (meter) meter.chars += i + 1 - start;
        return i + 1;
      }
    }
  }
  if (meter) meter.chars += n - start;
  return -1;
}

/** Parses JSON, returning undefined instead of throwing (the characters count as visited). */
export function parseJsonOrUndefined<T>(text: string, meter?: ScanMeter): T | undefined {
  if (meter) meter.chars += text.length;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

const ASSIGN_GAP = 20;

/**
 * The JSON literal assigned to `name` in an inline script (`name=[...]`, `name = {...}`), parsed: the first
 * occurrence whose literal parses. One pass: the search resumes after each literal it read, and it gives up at the
 * first literal that does not close.
 */
export function readAssignedLiteral<T>(html: string, name: string, meter?: ScanMeter): T | undefined {
  let from = 0;
  for (;;) {
    const i = html.indexOf(name, from);
    if (meter) meter.chars += (i < 0 ? html.length : i + name.length) - from;
    if (i < 0) return undefined;
    let j = i + name.length;
    const gapEnd = Math.min(html.length, j + ASSIGN_GAP);
    let sawEquals = false;
    for (; j < gapEnd; j++) {
      const c = html.charCodeAt(j);
      if (c === 0x3d && !sawEquals) sawEquals = true;
      else if (!(c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c)) break;
    }
    if (meter) meter.chars += j - i - name.length;
    const c = html.charCodeAt(j);
    if (!sawEquals || (c !== 0x5b && c !== 0x7b)) {
      from = i + name.length;
      continue;
    }
    const end = jsonLiteralEnd(html, j, meter);
    if (end < 0) return undefined;
    const parsed = parseJsonOrUndefined<T>(html.slice(j, end), meter);
    if (parsed !== undefined) return parsed;
    from = end;
  }
}
