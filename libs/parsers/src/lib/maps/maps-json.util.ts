// Helpers for the nested, index-addressed JSON arrays Google Maps embeds in its pages and returns from its endpoints.

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
export function tryParseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/**
 * Parses a maps endpoint body: `)]}'` + JSON array, or the older wrapper object `{"c":0,"d":")]}'\n[...]"}` whose `d`
 * holds the same thing as a string.
 */
export function parseMapsJson(text: string): Json | undefined {
  const parsed = tryParseJson(stripXssi(text));
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && typeof parsed['d'] === 'string') {
    return tryParseJson(stripXssi(parsed['d']));
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
  const open = text[start];
  if (open !== '[' && open !== '{') return undefined;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

/** The value assigned to `name` in an inline script (`name=[...]` or `name = {...}`), parsed. */
export function readAssignedJson(html: string, name: string): Json | undefined {
  let from = 0;
  for (;;) {
    const i = html.indexOf(name, from);
    if (i < 0) return undefined;
    const m = /^\s*=\s*/.exec(html.slice(i + name.length, i + name.length + 20));
    if (m) {
      const literal = sliceJsonLiteral(html, i + name.length + m[0].length);
      const parsed = literal === undefined ? undefined : tryParseJson(literal);
      if (parsed !== undefined) return parsed;
    }
    from = i + name.length;
  }
}

/** Every string inside `value` that is itself an XSSI-prefixed JSON document, parsed. */
export function embeddedJsonDocuments(value: Json | undefined): Json[] {
  const out: Json[] = [];
  walkJson(value, (v) => {
    if (typeof v === 'string' && hasXssiPrefix(v)) {
      const parsed = tryParseJson(stripXssi(v));
      if (parsed !== undefined) out.push(parsed);
    }
  });
  return out;
}
