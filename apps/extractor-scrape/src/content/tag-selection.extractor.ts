import { load } from 'cheerio/slim';
import { Document, isTag, type AnyNode, type Element, type ParentNode } from 'domhandler';
import { TrawlError } from '@trawl/contracts';

/**
 * `includeTags` / `excludeTags` (CSS selectors, Firecrawl's semantics), applied before the main content: with
 * `includeTags`, the page is only the elements that match one of them (each once, outermost first, in page order);
 * then every element matching one of `excludeTags` is removed. A selector that does not parse is a VALIDATION_FAILED
 * naming it. Returns the node to go on with (the document itself, or a new one holding the included elements).
 */
export function selectTags(
  doc: Document,
  include: readonly string[] = [],
  exclude: readonly string[] = [],
): ParentNode {
  let root: ParentNode = doc;
  const $ = load(doc, { xml: false }, false);
  if (include.length > 0) {
    const picked = new Set<Element>();
    for (const selector of include) for (const el of select($, selector, 'includeTags')) picked.add(el);
    const outermost = [...picked].filter((el) => !hasAncestorIn(el, picked));
    const order = documentOrder(doc);
    outermost.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    const selection = new Document([]);
    for (const el of outermost) {
      detach(el);
      const last = selection.children[selection.children.length - 1];
      if (last) {
        last.next = el;
        el.prev = last;
      }
      el.parent = selection;
      selection.children.push(el);
    }
    root = selection;
  }
  if (exclude.length > 0) {
    const $root = root === doc ? $ : load(root as Document, { xml: false }, false);
    for (const selector of exclude) for (const el of select($root, selector, 'excludeTags')) detach(el);
  }
  return root;
}

function select($: ReturnType<typeof load>, selector: string, field: string): Element[] {
  try {
    return $(selector)
      .toArray()
      .filter((n): n is Element => isTag(n));
  } catch (e) {
    throw new TrawlError(
      'VALIDATION_FAILED',
      `${field}: "${selector}" is not a CSS selector this service understands`,
      {
        cause: e,
      },
    );
  }
}

function hasAncestorIn(el: Element, set: Set<Element>): boolean {
  for (let n = el.parent; n && isTag(n); n = n.parent) if (set.has(n)) return true;
  return false;
}

function documentOrder(root: ParentNode): Map<AnyNode, number> {
  const order = new Map<AnyNode, number>();
  const stack: AnyNode[] = [...root.children].reverse();
  let i = 0;
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    order.set(node, i++);
    if (isTag(node)) for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k]);
  }
  return order;
}

function detach(node: AnyNode): void {
  const parent = node.parent;
  if (!parent) return;
  const i = parent.children.indexOf(node);
  if (i >= 0) parent.children.splice(i, 1);
  if (node.prev) node.prev.next = node.next;
  if (node.next) node.next.prev = node.prev;
  node.parent = node.prev = node.next = null;
}
