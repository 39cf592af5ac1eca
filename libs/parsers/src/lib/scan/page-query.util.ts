// Element-level queries on a loaded page: what a reader asks of nodes it already holds (the elements under one, the
// nearest ancestor that matches, whether one matches) without wrapping each node in a cheerio selection and
// unwrapping the answer again. Same answers as the loaded document's `.find()`, `.closest()` and `.is()` (same
// elements, same order); selectors that cheerio must answer still go to cheerio.
import type { Cheerio, CheerioAPI } from 'cheerio';
import { isTag, type AnyNode, type Element } from 'domhandler';
import { compiledSelector, filterScoped, findUnder, type CompiledSelector } from './compiled-selector.util.js';
import type { ElementOrder } from './element-order.util.js';

export interface PageQuery {
  /** The document node (what `$(selector)` searches from). */
  readonly root: AnyNode;
  /** `$(from).find(selector)` as elements, at most `limit` (the first `limit` in document order). */
  find(from: AnyNode, selector: string, limit?: number): Element[];
  /** The first of `find`, or undefined. */
  first(from: AnyNode, selector: string): Element | undefined;
  /** `$(node).closest(selector)[0]`: the node or its nearest ancestor that matches. */
  closest(node: AnyNode, selector: string): Element | undefined;
  /** `$(node).is(selector)`. */
  is(node: AnyNode, selector: string): boolean;
  /**
   * Whether `closest(node, selector)` finds an element: the answers are kept per element for the loaded document
   * (until its tree changes), so the nodes of one region share one walk up instead of a walk each.
   */
  within(node: AnyNode, selector: string): boolean;
}

const queries = new WeakMap<CheerioAPI, PageQuery>();

/** The element queries of a document loaded by `loadPageDom` (any other document gets cheerio's own answers). */
export function pageQuery($: CheerioAPI): PageQuery {
  let q = queries.get($);
  if (!q) {
    q = new CheerioQuery($);
    queries.set($, q);
  }
  return q;
}

/** Registers the element queries of a loaded document (`loadPageDom`); `order` is its current element order. */
export function registerPageQuery($: CheerioAPI, order: () => ElementOrder): void {
  queries.set($, new IndexedQuery($, order));
}

/** cheerio's answers, each through a selection. */
class CheerioQuery implements PageQuery {
  readonly root: AnyNode;

  constructor(protected readonly $: CheerioAPI) {
    this.root = $.root()[0];
  }

  protected wrap(node: AnyNode): Cheerio<AnyNode> {
    return this.$(node);
  }

  find(from: AnyNode, selector: string, limit = Infinity): Element[] {
    const found = this.wrap(from).find(selector).toArray() as Element[];
    return found.length > limit ? found.slice(0, limit) : found;
  }

  first(from: AnyNode, selector: string): Element | undefined {
    return this.find(from, selector, 1)[0];
  }

  closest(node: AnyNode, selector: string): Element | undefined {
    return this.wrap(node).closest(selector)[0] as Element | undefined;
  }

  is(node: AnyNode, selector: string): boolean {
    return this.wrap(node).is(selector);
  }

  within(node: AnyNode, selector: string): boolean {
    return this.closest(node, selector) !== undefined;
  }
}

/**
 * A compiled selector answered on the nodes themselves, with the loaded document's semantics: a find scans the element
 * order's range of the start node (`ElementOrder.find`); a selector that walks up from a start whose parent is an
 * element (cheerio scopes that one) keeps the matches whose leftmost part lies in the start (`filterScoped`).
 */
class IndexedQuery extends CheerioQuery {
  constructor(
    $: CheerioAPI,
    private readonly order: () => ElementOrder,
  ) {
    super($);
  }

  override find(from: AnyNode, selector: string, limit = Infinity): Element[] {
    const q = compiledSelector(selector);
    if (q === null) return super.find(from, selector, limit);
    if (q.traverses && isTag(from) && from.parent && isTag(from.parent)) {
      // cheerio scopes it: the unscoped matches under `from`, kept when they match from inside `from`.
      const unscoped = this.order().find(from, q, Infinity) ?? findUnder(from, q, Infinity);
      return (filterScoped(from, selector, unscoped, limit) ?? super.find(from, selector, limit)) as Element[];
    }
    return (this.order().find(from, q, limit) ?? findUnder(from, q, limit)) as Element[];
  }

  override closest(node: AnyNode, selector: string): Element | undefined {
    const q = compiledSelector(selector);
    return q ? closestOne(node, q) : super.closest(node, selector);
  }

  override is(node: AnyNode, selector: string): boolean {
    const q = compiledSelector(selector);
    return q ? isTag(node) && q.test(node) : super.is(node, selector);
  }

  override within(node: AnyNode, selector: string): boolean {
    const q = compiledSelector(selector);
    if (!q) return super.within(node, selector);
    const memo = this.order().memo(selector);
    // As `closestOne`, remembering the answer of every element passed on the way up.
    let elem: AnyNode | null = node;
    if (elem.type !== 'root' && !isTag(elem)) elem = elem.parent;
    const path: AnyNode[] = [];
    let found = false;
    while (elem && isTag(elem)) {
      const known = memo.get(elem);
      if (known !== undefined) {
        found = known;
        break;
      }
      if (q.test(elem)) {
        found = true;
        memo.set(elem, true);
        break;
      }
      path.push(elem);
      elem = elem.parent;
    }
    for (const el of path) memo.set(el, found);
    return found;
  }
}

/** `closestWith` for one node. */
function closestOne(node: AnyNode, q: CompiledSelector): Element | undefined {
  let elem: AnyNode | null = node;
  if (elem.type !== 'root' && !isTag(elem)) elem = elem.parent;
  while (elem && isTag(elem)) {
    if (q.test(elem)) return elem;
    elem = elem.parent;
  }
  return undefined;
}
