// One HTML load for every parser: htmlparser2 (several times faster than parse5 on 1-2 MB pages), with Chromium's
// kind of nesting cap and a linear `.find()`, so no crafted page makes a selector or an ancestor walk quadratic.
import { load, type Cheerio, type CheerioAPI } from 'cheerio';
import { select } from 'cheerio-select';
import { isTag } from 'domhandler';
import { DomHandler, Parser } from 'htmlparser2';
import {
  childrenWith,
  closestWith,
  compiledSelector,
  filterWith,
  findUnder,
  isWith,
  parentsWith,
  type CompiledSelector,
} from './compiled-selector.util.js';
import { ElementOrder } from './element-order.util.js';
import { registerPageQuery } from './page-query.util.js';
import type { ScanMeter } from './scan-meter.types.js';

/**
 * Deepest element nesting kept. Chromium's HTML parser does the same at 512 (kMaximumHTMLParserDOMTreeDepth): deeper
 * elements become siblings at that depth. Here the cap is 128, twice the deepest page of the shared fixtures (61,
 * a results page): it bounds every ancestor walk (descendant selectors, `closest`, `parents`) and every recursive
 * text read by a constant, whatever the page.
 */
export const MAX_DOM_DEPTH = 128;

/**
 * Deepest nesting of open elements the HTML parser itself tracks (Chromium's 512). htmlparser2 keeps its stack of open
 * elements innermost first and moves the whole stack on every open and close (`unshift`, `shift`) and scans it for
 * every close tag (`indexOf`): with no bound, a page of N unclosed elements cost N²/2 moves (search on 10 MB of deep
 * nesting did not finish in 4 minutes). Past the cap the outermost open elements are forgotten by the parser: their
 * close tags then close nothing (they are ignored, as a stray close tag is), and what follows the deep region stays
 * at the DOM cap's depth. Each open or close tag then touches at most this many entries, a constant.
 */
export const MAX_PARSER_DEPTH = 512;

type Node = Parameters<DomHandler['addNode']>[0];

/** htmlparser2's Parser internals the depth cap trims: open element names and foreign-content flags, innermost first. */
interface OpenElements {
  /** Where the current token starts in the input. */
  startIndex: number;
  stack: string[];
  foreignContext: boolean[];
  onclosetag(start: number, endIndex: number): void;
}

/**
 * DomHandler that attaches nodes deeper than MAX_DOM_DEPTH to the element at that depth (as Chromium does), and keeps
 * the parser's own stack of open elements at MAX_PARSER_DEPTH.
 */
class CappedDomHandler extends DomHandler {
  private open?: OpenElements;

  constructor(private readonly meter?: ScanMeter) {
    // Start indices: every node's position in the input, ascending in document order (ElementOrder finds a node by
    // it instead of keeping a map of every element).
    super(undefined, { withStartIndices: true, withEndIndices: false });
  }

  override onparserinit(parser: Parameters<DomHandler['onparserinit']>[0]): void {
    super.onparserinit(parser);
    const open = parser as unknown as OpenElements;
    this.open = open;
    const meter = this.meter;
    if (!meter) return;
    // A close tag scans the stack for its name (`indexOf`) before anything is closed: count the scan.
    const close = open.onclosetag.bind(open);
    open.onclosetag = (start, endIndex) => {
      meter.stack += open.stack.length;
      close(start, endIndex);
    };
  }

  /** Called by the parser right after it put `name` on its stack (an `unshift`: it moves every entry). */
  onopentagname(): void {
    const open = this.open;
    if (!open) return;
    if (this.meter) this.meter.stack += open.stack.length;
    // Dropping from the end drops the outermost: the innermost elements stay closeable by their close tags.
    if (open.stack.length > MAX_PARSER_DEPTH) open.stack.length = MAX_PARSER_DEPTH;
    if (open.foreignContext.length > MAX_PARSER_DEPTH) open.foreignContext.length = MAX_PARSER_DEPTH;
  }

  /** Called by the parser for each element it takes off its stack (a `shift`: it moves every entry left). */
  override onclosetag(): void {
    if (this.meter && this.open) this.meter.stack += this.open.stack.length + 1;
    super.onclosetag();
  }

  override addNode(node: Node): void {
    const stack = this.tagStack;
    const depth = Math.min(stack.length, MAX_DOM_DEPTH);
    if (this.meter) {
      this.meter.nodes++;
      if (depth > this.meter.maxDepth) this.meter.maxDepth = depth;
      if (this.meter.countReads !== false) countReads(node, this.meter);
    }
    if (depth === stack.length) {
      super.addNode(node);
      return;
    }
    const parent = stack[depth - 1];
    const previous = parent.children[parent.children.length - 1];
    if (this.open) node.startIndex = this.open.startIndex;
    parent.children.push(node);
    if (previous) {
      node.prev = previous;
      previous.next = node;
    }
    node.parent = parent;
    this.lastNode = null;
  }
}

/** Properties through which anything reads the tree: tree walks, selector matching, text. */
const READ_KEYS = ['parent', 'children', 'prev', 'next', 'attribs', 'data'] as const;

/** Makes every read of a node's links, attributes and text count on the meter (tests only: it is slow). */
function countReads(node: Node, meter: ScanMeter): void {
  const record = node as unknown as Record<string, unknown>;
  for (const key of READ_KEYS) {
    if (!(key in record)) continue;
    let value = record[key];
    Object.defineProperty(record, key, {
      get() {
        meter.domReads++;
        return value;
      },
      set(v: unknown) {
        value = v;
      },
      enumerable: true,
      configurable: true,
    });
  }
}

type AnyNode = Node | DomHandler['root'];

/**
 * domutils' `removeSubsets` in one pass: a Set instead of `includes` per ancestor (which is quadratic in the number
 * of nodes, and css-select calls it on the children of every element a `.find()` starts from: a page with a
 * hundred thousand siblings made every `$('body').find(…)` quadratic). Keeps the first of duplicates, drops nodes
 * inside another, in order.
 */
function removeSubsets(nodes: AnyNode[]): AnyNode[] {
  const all = new Set(nodes);
  const kept = new Set<AnyNode>();
  for (const node of nodes) {
    if (kept.has(node)) continue;
    let inside = false;
    for (let up = node.parent; up; up = up.parent) {
      if (all.has(up)) {
        inside = true;
        break;
      }
    }
    if (!inside) kept.add(node);
  }
  return [...kept];
}

/** cheerio's test for selectors that start from the context itself (`+ x`, `~ x`). */
const CONTEXT_SELECTOR = /^\s*[+~]/;

type FindBySelector = (this: Cheerio<AnyNode>, selector: string, limit: number) => Cheerio<AnyNode>;

/**
 * cheerio's `_findBySelector` (behind `.find()` and `$(selector)`), linear: cheerio hands css-select the children of
 * the start elements as an array, and css-select dedupes such an array with domutils' `removeSubsets`, quadratic in
 * its length (a page with a hundred thousand siblings made every `$('body').find(…)` quadratic). Here each start
 * element (nested ones dropped first, in one pass) is handed over alone, so css-select reads its children itself.
 */
const findBySelector = (order: () => ElementOrder): FindBySelector =>
  function (selector, limit) {
    const context = this.toArray();
    const options = {
      context,
      root: (this as unknown as { _root?: Cheerio<AnyNode> })._root?.[0],
      xmlMode: false,
      lowerCaseTags: this.options.lowerCaseTags,
      lowerCaseAttributeNames: this.options.lowerCaseAttributeNames,
      pseudos: this.options.pseudos,
      quirksMode: this.options.quirksMode,
    } as Parameters<typeof select>[2];
    type Root = Parameters<typeof select>[1];
    if (CONTEXT_SELECTOR.test(selector)) return this._make(select(selector, context as Root, options, limit));
    // Compiled once: a selector of compounds only means the same from any start; one that walks up (`a h3`) does
    // when cheerio does not scope it (a start element whose parent is not an element, such as the document).
    const q = compiledSelector(selector);
    const fast = q !== null && (!q.traverses || !context.every((e) => isTag(e) && e.parent && isTag(e.parent)));
    const under = (root: AnyNode, max: number): AnyNode[] =>
      fast
        ? (order().find(root, q, max) ?? findUnder(root, q, max))
        : (select(selector, root as Root, options, max) as AnyNode[]);
    const roots = removeSubsets(context);
    if (roots.length === 1) return this._make(under(roots[0], limit));
    const found = new Set<AnyNode>();
    for (const root of roots) {
      if (found.size >= limit) break;
      for (const el of under(root, limit - found.size)) found.add(el);
    }
    return this._make([...found]);
  };

/** cheerio methods that change the tree's structure. */
const MUTATIONS = [
  'append',
  'appendTo',
  'prepend',
  'prependTo',
  'after',
  'insertAfter',
  'before',
  'insertBefore',
  'replaceWith',
  'empty',
  'html',
  'text',
  'wrap',
  'wrapInner',
  'unwrap',
  'wrapAll',
] as const;

type Method = (this: Cheerio<AnyNode>, selector?: unknown) => unknown;

/**
 * Replaces a selection method of the loaded document by one that runs a compiled selector (`compiledSelector`) with
 * cheerio's semantics; other arguments and selectors cheerio must answer go to cheerio's own method.
 */
function withCompiled(
  fn: Record<string, unknown>,
  name: string,
  fast: (self: Cheerio<AnyNode>, q: CompiledSelector) => unknown,
): void {
  const own = fn[name] as Method;
  fn[name] = function (this: Cheerio<AnyNode>, selector?: unknown) {
    const q = typeof selector === 'string' ? compiledSelector(selector) : null;
    return q ? fast(this, q) : own.call(this, selector);
  };
}

/** Loads a page once, htmlparser2 in HTML mode, nesting capped at MAX_DOM_DEPTH; `meter` counts the work
 * (characters, nodes, and every read of the tree afterwards). */
export function loadPageDom(html: string, meter?: ScanMeter): CheerioAPI {
  const handler = new CappedDomHandler(meter);
  new Parser(handler, { xmlMode: false, decodeEntities: true }).end(html);
  if (meter) meter.chars += html.length;
  const $ = load(handler.root, { xml: { xmlMode: false, decodeEntities: true } });
  const fn = $.fn as unknown as Record<string, unknown>;
  let order: ElementOrder | undefined;
  const currentOrder = (): ElementOrder => (order ??= new ElementOrder(handler.root));
  fn._findBySelector = findBySelector(currentOrder);
  registerPageQuery($, currentOrder);
  // A find reads the element order built on first use: a removal marks the removed elements in it, any other change
  // of the tree drops it.
  const remove = fn.remove as (this: Cheerio<AnyNode>, selector?: string) => Cheerio<AnyNode>;
  fn.remove = function (this: Cheerio<AnyNode>, selector?: string) {
    const removed = (selector ? this.filter(selector) : this).toArray();
    const result = remove.call(this, selector);
    if (order) for (const el of removed) order.drop(el);
    return result;
  };
  for (const name of MUTATIONS) {
    const own = fn[name] as (...args: unknown[]) => unknown;
    fn[name] = function (this: unknown, ...args: unknown[]) {
      // `.text()` and `.html()` without an argument only read.
      if (args.length > 0 || (name !== 'text' && name !== 'html')) order = undefined;
      return own.apply(this, args);
    };
  }
  withCompiled(fn, 'is', isWith);
  withCompiled(fn, 'closest', closestWith);
  withCompiled(fn, 'filter', filterWith);
  withCompiled(fn, 'children', childrenWith);
  withCompiled(fn, 'parents', parentsWith);
  return $;
}
