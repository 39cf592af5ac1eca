// One HTML load for every parser: htmlparser2 (several times faster than parse5 on 1-2 MB pages), with Chromium's
// kind of nesting cap and a linear `.find()`, so no crafted page makes a selector or an ancestor walk quadratic.
import { load, type Cheerio, type CheerioAPI } from 'cheerio';
import { select } from 'cheerio-select';
import { DomHandler, Parser } from 'htmlparser2';
import type { ScanMeter } from './scan-meter.types.js';

/**
 * Deepest element nesting kept. Chromium's HTML parser does the same at 512 (kMaximumHTMLParserDOMTreeDepth): deeper
 * elements become siblings at that depth. Here the cap is 128, twice the deepest page of the shared fixtures (61,
 * a results page): it bounds every ancestor walk (descendant selectors, `closest`, `parents`) and every recursive
 * text read by a constant, whatever the page.
 */
export const MAX_DOM_DEPTH = 128;

type Node = Parameters<DomHandler['addNode']>[0];

/** DomHandler that attaches nodes deeper than MAX_DOM_DEPTH to the element at that depth (as Chromium does). */
class CappedDomHandler extends DomHandler {
  constructor(private readonly meter?: ScanMeter) {
    super(undefined, { withStartIndices: false, withEndIndices: false });
  }

  override addNode(node: Node): void {
    const stack = this.tagStack;
    const depth = Math.min(stack.length, MAX_DOM_DEPTH);
    if (this.meter) {
      this.meter.nodes++;
      if (depth > this.meter.maxDepth) this.meter.maxDepth = depth;
      countReads(node, this.meter);
    }
    if (depth === stack.length) {
      super.addNode(node);
      return;
    }
    const parent = stack[depth - 1];
    const previous = parent.children[parent.children.length - 1];
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
const findBySelector: FindBySelector = function (selector, limit) {
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
  const roots = removeSubsets(context);
  if (roots.length === 1) return this._make(select(selector, roots[0] as Root, options, limit));
  const found = new Set<AnyNode>();
  for (const root of roots) {
    if (found.size >= limit) break;
    for (const el of select(selector, root as Root, options, limit - found.size)) found.add(el as AnyNode);
  }
  return this._make([...found]);
};

/** Loads a page once, htmlparser2 in HTML mode, nesting capped at MAX_DOM_DEPTH; `meter` counts the work
 * (characters, nodes, and every read of the tree afterwards). */
export function loadPageDom(html: string, meter?: ScanMeter): CheerioAPI {
  const handler = new CappedDomHandler(meter);
  new Parser(handler, { xmlMode: false, decodeEntities: true }).end(html);
  if (meter) meter.chars += html.length;
  const $ = load(handler.root, { xml: { xmlMode: false, decodeEntities: true } });
  ($.fn as unknown as { _findBySelector: FindBySelector })._findBySelector = findBySelector;
  return $;
}
