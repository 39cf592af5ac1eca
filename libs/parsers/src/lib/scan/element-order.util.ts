// The elements of a loaded document in document order, indexed by tag and attribute name: what the loaded document's
// `.find()` scans instead of walking the tree (see compiled-selector.util.ts).
import { isTag, type AnyNode, type Element, type ParentNode } from 'domhandler';
import type { CompiledSelector } from './compiled-selector.util.js';

/**
 * The elements of a loaded tree in document order, each with the end of its subtree, so a find from any element is a
 * scan of one contiguous range (no walk of text nodes, no stack of child lists). Built on the first find; elements
 * removed from the tree are marked (`drop`), any other change of the tree makes the caller build it again.
 */
export class ElementOrder {
  private readonly order: AnyNode[] = [];
  /** Positions of elements that `startIndex` does not find (built on first need). */
  private at: Map<AnyNode, number> | undefined;
  private readonly ends: number[] = [];
  /** Positions in `order` of the elements of each key (`<tag`, `@attribute`, `.class` on first use), ascending. */
  private readonly byKey = new Map<string, number[]>();
  /** 1 for an element removed from the tree, or inside one. */
  private dead: Uint8Array | undefined;
  /** Per class token not yet listed, how many classed elements the finds that asked for it scanned. */
  private readonly tokenScans = new Map<string, number>();
  /** Per selector, whether an element or one of its ancestors matches it (`PageQuery.within`). */
  private readonly memos = new Map<string, Map<AnyNode, boolean>>();

  constructor(private readonly root: AnyNode) {
    const byTag = new Map<string, number[]>();
    const byAttribute = new Map<string, number[]>();
    this.visit(root, byTag, byAttribute);
    // Keyed as the compiled selectors name them; names are joined to their prefix once each, not once per element.
    for (const [name, at] of byTag) this.byKey.set(`<${name}`, at);
    for (const [name, at] of byAttribute) this.byKey.set(`@${name}`, at);
  }

  /** Depth-first; the tree's depth is capped (MAX_DOM_DEPTH), so the recursion is bounded. */
  private visit(node: AnyNode, byTag: Map<string, number[]>, byAttribute: Map<string, number[]>): void {
    const children = (node as ParentNode).children;
    for (let c = 0; c < children.length; c++) {
      const child = children[c];
      if (!isTag(child)) continue;
      const i = this.order.length;
      this.order.push(child);
      push(byTag, child.name, i);
      for (const name in child.attribs) push(byAttribute, name, i);
      this.ends.push(0);
      this.visit(child, byTag, byAttribute);
      this.ends[i] = this.order.length;
    }
  }

  /**
   * An element's position: found by its `startIndex` (set by the load, ascending in document order; elements made by
   * the parser without a tag of their own share their neighbour's), confirmed by identity; else from a map of every
   * element, built once (elements inserted after the load carry another input's indices).
   */
  private positionOf(el: AnyNode): number | undefined {
    const start = el.startIndex;
    const order = this.order;
    if (typeof start === 'number') {
      let lo = 0;
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const s = order[mid].startIndex;
        if (s !== null && s < start) lo = mid + 1;
        else hi = mid;
      }
      for (let k = lo; k < order.length && order[k].startIndex === start; k++) if (order[k] === el) return k;
    }
    if (!this.at) {
      this.at = new Map();
      for (let k = 0; k < order.length; k++) this.at.set(order[k], k);
    }
    return this.at.get(el);
  }

  /**
   * The answers kept for a selector while this order is current: a change of the tree makes a new order, a removal
   * clears them (a removed element has no ancestors any more).
   */
  memo(selector: string): Map<AnyNode, boolean> {
    let memo = this.memos.get(selector);
    if (!memo) {
      memo = new Map();
      this.memos.set(selector, memo);
    }
    return memo;
  }

  /** Marks an element that was removed from the tree, with everything inside it. */
  drop(el: AnyNode): void {
    this.memos.clear();
    const i = this.positionOf(el);
    if (i === undefined) return;
    const dead = (this.dead ??= new Uint8Array(this.order.length));
    dead.fill(1, i, this.ends[i]);
  }

  /**
   * The positions of a key's elements that a find of `lo`..`hi` scans. A class token's (`.token`) are those of
   * `@class` whose class attribute holds it as text (a superset of the elements that hold it as a word: the selector's
   * test decides), listed once the finds that asked for it have together scanned as many classed elements as the
   * listing reads; until then a find scans the classed elements of its range, as for `@class`. So a token asked from
   * small subtrees costs no scan of the whole page, and the listing at most doubles the work of the finds before it.
   */
  private listOf(key: string, lo: number, hi: number): number[] | undefined {
    const list = this.byKey.get(key);
    if (list !== undefined || key.charCodeAt(0) !== 46 /* . */) return list;
    const classed = this.byKey.get('@class');
    if (!classed) return undefined;
    const scanned = (this.tokenScans.get(key) ?? 0) + firstAtOrAfter(classed, hi) - firstAtOrAfter(classed, lo);
    if (scanned < classed.length) {
      this.tokenScans.set(key, scanned);
      return classed;
    }
    const token = key.slice(1);
    const listed: number[] = [];
    for (const k of classed) if ((this.order[k] as Element).attribs.class.includes(token)) listed.push(k);
    this.byKey.set(key, listed);
    return listed;
  }

  /** As `findUnder`, or undefined for a start outside this tree (or removed from it). */
  find(from: AnyNode, q: CompiledSelector, limit: number): AnyNode[] | undefined {
    let lo = 0;
    let hi = this.order.length;
    const dead = this.dead;
    if (from !== this.root) {
      const i = this.positionOf(from);
      if (i === undefined || dead?.[i]) return undefined;
      lo = i + 1;
      hi = this.ends[i];
    }
    const out: AnyNode[] = [];
    if (q.keys) {
      // Only elements with one of the selector's keys can match: their positions inside the range, in order.
      let at: number[] = [];
      for (const key of q.keys) {
        const all = this.listOf(key, lo, hi);
        if (!all) continue;
        for (let k = firstAtOrAfter(all, lo); k < all.length && all[k] < hi; k++) at.push(all[k]);
      }
      if (q.keys.length > 1) at = at.sort((a, b) => a - b);
      for (let j = 0; j < at.length; j++) {
        const k = at[j];
        if (dead?.[k] || (j > 0 && at[j - 1] === k)) continue;
        const el = this.order[k];
        if (q.test(el)) {
          out.push(el);
          if (--limit <= 0) break;
        }
      }
      return out;
    }
    for (let k = lo; k < hi; k++) {
      if (dead?.[k]) continue;
      const el = this.order[k];
      if (q.test(el)) {
        out.push(el);
        if (--limit <= 0) break;
      }
    }
    return out;
  }
}

function push(map: Map<string, number[]>, key: string, i: number): void {
  const same = map.get(key);
  if (same) same.push(i);
  else map.set(key, [i]);
}

/** Index of the first value of an ascending list that is at least `min` (binary search). */
function firstAtOrAfter(list: number[], min: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
