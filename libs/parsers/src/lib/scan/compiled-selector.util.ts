// Selectors compiled once per process. cheerio parses (css-what) and compiles (css-select) a selector string on every
// `.find()`, `.is()`, `.filter()`, `.children()` and `.parents()`, and `.closest()` does it again for every ancestor it
// tests: on a results page that was most of the parse (BENCHMARKS.md, parse-and-path (a3)). Here a selector whose
// meaning does not depend on where it is asked (no positional pseudo, no `:scope`, no relative start) is compiled
// once, without a context, and the loaded document's methods use the compiled test with cheerio's own semantics
// (same elements, same order). Anything else goes to cheerio as before.
import type { Cheerio } from 'cheerio';
import { compile } from 'css-select';
import { parse, SelectorType, type Selector } from 'css-what';
import { isTag, type AnyNode, type Element } from 'domhandler';
import { find as findNodes, getChildren, uniqueSort } from 'domutils';

/** A compiled selector and whether any of its alternatives walks to other elements (descendant or child). */
export interface CompiledSelector {
  test: (el: AnyNode) => boolean;
  traverses: boolean;
  /**
   * Keys every matched element has, one per alternative: `@name` an attribute the element carries, `.token` a class
   * its class attribute holds (as a substring: a class list that holds the token as a word holds it as text), `<name`
   * a tag name; null when an alternative names none (any element may match).
   */
  keys: string[] | null;
}

/** Token types a context-free compiled selector may hold. */
const SIMPLE = new Set<string>(['tag', 'attribute', 'universal']);
const WALKS = new Set<string>(['descendant', 'child']);

/** A compound selector (no combinator, no pseudo but a `:not` of compounds), as `:not(…)` may hold. */
function isCompound(tokens: Selector[]): boolean {
  return tokens.every((t) => SIMPLE.has(t.type) || isPlainNot(t));
}

function isPlainNot(t: Selector): boolean {
  return t.type === 'pseudo' && t.name === 'not' && Array.isArray(t.data) && t.data.every(isCompound);
}

/** null: the selector's meaning may depend on its context, or it does not parse: cheerio answers it. */
/** Attribute actions a match cannot meet without the attribute (`[a!=b]` can). */
const NEEDS_ATTRIBUTE = new Set(['exists', 'equals', 'element', 'start', 'end', 'any', 'hyphen']);

function analyse(selector: string): { traverses: boolean; keys: string[] | null } | null {
  let parsed: Selector[][];
  try {
    parsed = parse(selector);
  } catch {
    return null;
  }
  let traverses = false;
  let keys: Set<string> | null = new Set();
  for (const tokens of parsed) {
    if (tokens.length === 0 || WALKS.has(tokens[0].type) || WALKS.has(tokens[tokens.length - 1].type)) return null;
    // The key of the last compound (the element matched): an attribute it needs other than class, else one of its
    // classes (a case-sensitive `.token`, as in a document not in quirks mode), else its tag, else `@class`.
    let tag: string | undefined;
    let attribute: string | undefined;
    let token: string | undefined;
    for (const t of tokens) {
      if (WALKS.has(t.type)) {
        traverses = true;
        tag = attribute = token = undefined;
      } else if (t.type === 'tag' && t.namespace == null) tag = t.name.toLowerCase();
      else if (t.type === 'attribute' && t.namespace == null && NEEDS_ATTRIBUTE.has(t.action)) {
        if (attribute === undefined || attribute === 'class') attribute = t.name.toLowerCase();
        if (t.name === 'class' && t.action === 'element' && t.ignoreCase !== true && token === undefined) {
          token = t.value;
        }
      } else if (!SIMPLE.has(t.type) && !isPlainNot(t)) return null;
    }
    const key =
      attribute !== undefined && attribute !== 'class'
        ? `@${attribute}`
        : token
          ? `.${token}`
          : tag !== undefined
            ? `<${tag}`
            : attribute !== undefined
              ? `@${attribute}`
              : undefined;
    if (key === undefined) keys = null;
    else keys?.add(key);
  }
  return { traverses, keys: keys ? [...keys] : null };
}

const cache = new Map<string, CompiledSelector | null>();
const MAX_CACHED = 2000;

/**
 * The selector compiled in HTML mode without a context (as cheerio's `.is()`, `.closest()` and `.filter()` compile
 * it), or null when cheerio must answer it. Compiled functions keep css-select's per-node cache of ancestors that do
 * not match: the tree is not restructured under a node after it is loaded, so the cache stays true.
 */
export function compiledSelector(selector: string): CompiledSelector | null {
  let hit = cache.get(selector);
  if (hit !== undefined) return hit;
  const shape = selector ? analyse(selector) : null;
  hit = shape
    ? { test: compile<AnyNode, Element>(selector, { xmlMode: false }) as (el: AnyNode) => boolean, ...shape }
    : null;
  // The parsers' selectors are constants; the bound only keeps a caller with made-up selectors from growing it.
  if (cache.size < MAX_CACHED) cache.set(selector, hit);
  return hit;
}

/** The element a scoped selector is asked from (set for the duration of one `findScoped`). */
let scope: AnyNode | undefined;

/** Whether `el` is the current scope element or inside it. */
function withinScope(el: AnyNode): boolean {
  for (let n: AnyNode | null = el; n; n = n.parent) if (n === scope) return true;
  return false;
}

const WITHIN_SCOPE = 'trawl-within-scope';
const scopedCache = new Map<string, ((el: AnyNode) => boolean) | null>();

/**
 * A selector that walks to other elements, as cheerio asks it from an element whose parent is an element: css-select
 * then puts the context before every alternative (`:scope` and a descendant combinator that takes the context itself
 * too), so an alternative's leftmost compound must match the start element or an element inside it. Compiled once with
 * that condition added to each leftmost compound, checked against the start of the current call; without css-select's
 * cache of non-matching ancestors (it would outlive the start it was true for). Null when cheerio must answer.
 */
function scopedSelector(selector: string): ((el: AnyNode) => boolean) | null {
  let hit = scopedCache.get(selector);
  if (hit !== undefined) return hit;
  hit = null;
  if (compiledSelector(selector)) {
    const token = parse(selector);
    for (const tokens of token) {
      const firstWalk = tokens.findIndex((t) => WALKS.has(t.type));
      tokens.splice(firstWalk < 0 ? tokens.length : firstWalk, 0, {
        type: SelectorType.Pseudo,
        name: WITHIN_SCOPE,
        data: null,
      });
    }
    hit = compile<AnyNode, Element>(token, {
      xmlMode: false,
      cacheResults: false,
      pseudos: { [WITHIN_SCOPE]: withinScope },
    }) as (el: AnyNode) => boolean;
  }
  if (scopedCache.size < MAX_CACHED) scopedCache.set(selector, hit);
  return hit;
}

/**
 * Elements under `root` that match `selector` as cheerio's `.find()` asks it from `root` when `root`'s parent is an
 * element (see `scopedSelector`): `candidates` are the elements under `root` that match it unscoped, in document order
 * (a scoped match is an unscoped one). Null when cheerio must answer.
 */
export function filterScoped(root: AnyNode, selector: string, candidates: AnyNode[], limit: number): AnyNode[] | null {
  const test = scopedSelector(selector);
  if (!test) return null;
  const out: AnyNode[] = [];
  const outer = scope;
  scope = root;
  try {
    for (const el of candidates) {
      if (!test(el)) continue;
      out.push(el);
      if (out.length >= limit) break;
    }
  } finally {
    scope = outer;
  }
  return out;
}

type Sel = Cheerio<AnyNode>;
type Make = (nodes: AnyNode[]) => Sel;

function make(self: Sel, nodes: AnyNode[]): Sel {
  return (self as unknown as { _make: Make })._make(nodes);
}

/** cheerio's `.is(selector)`: whether any element of the selection matches. */
export function isWith(self: Sel, q: CompiledSelector): boolean {
  for (const n of self.toArray()) if (isTag(n) && q.test(n)) return true;
  return false;
}

/** cheerio's `.closest(selector)`: each element or its nearest ancestor that matches, without duplicates. */
export function closestWith(self: Sel, q: CompiledSelector): Sel {
  const set: AnyNode[] = [];
  for (let elem of self.toArray() as (AnyNode | null)[]) {
    if (elem && elem.type !== 'root' && !isTag(elem)) elem = elem.parent;
    while (elem && isTag(elem)) {
      if (q.test(elem)) {
        if (!set.includes(elem)) set.push(elem);
        break;
      }
      elem = elem.parent;
    }
  }
  return make(self, set);
}

/** cheerio's `.filter(selector)`. */
export function filterWith(self: Sel, q: CompiledSelector): Sel {
  return make(
    self,
    self.toArray().filter((n) => isTag(n) && q.test(n)),
  );
}

/** cheerio's `.children(selector)`: element children that match, duplicates dropped for a selection of several. */
export function childrenWith(self: Sel, q: CompiledSelector): Sel {
  let matched: AnyNode[] = [];
  for (const el of self.toArray()) {
    const kids = getChildren(el).filter(isTag);
    if (kids.length > 0) matched = matched.concat(kids);
  }
  matched = matched.filter((n) => q.test(n));
  return make(self, self.length > 1 && matched.length > 1 ? Array.from(new Set(matched)) : matched);
}

/** cheerio's `.parents(selector)`: matching ancestors (not the document), in cheerio's order for several. */
export function parentsWith(self: Sel, q: CompiledSelector): Sel {
  let matched: AnyNode[] = [];
  for (const start of self.toArray()) {
    const up: AnyNode[] = [];
    for (let elem = start; elem.parent && elem.parent.type !== 'root'; elem = elem.parent) up.push(elem.parent);
    if (up.length > 0) matched = matched.concat(up);
  }
  matched = matched.filter((n) => isTag(n) && q.test(n));
  return make(self, self.length > 1 && matched.length > 1 ? uniqueSort(matched).reverse() : matched);
}

/**
 * Elements under `root` (not `root` itself) that match, in document order, at most `limit`: css-select's search from
 * one start element as cheerio asks it. `scoped`: cheerio passed a context whose elements all have an element
 * parent, so the selector's leftmost part must match inside `root` or `root` itself; for a selector of one compound
 * per alternative that holds for every element under `root`, so the caller passes only those here.
 */
export function findUnder(root: AnyNode, q: CompiledSelector, limit: number): AnyNode[] {
  return findNodes((n) => isTag(n) && q.test(n), getChildren(root), true, limit) as AnyNode[];
}
