import { FiltersEngine, Request } from '@ghostery/adblocker';
import { compile } from 'css-select';
import { isTag, type AnyNode, type Element, type ParentNode } from 'domhandler';

type Query = (el: Element) => boolean;

/**
 * blockAds' element hiding in the digest (ADR 0030, amendment "EasyList beside the tracker database"): the rules (`##`)
 * of the blocker's lists, with their `#@#` exceptions and `$generichide`/`$elemhide`, applied to the parsed page as
 * uBlock's or Ghostery's content script applies them to a tab: the rules of the page's hostname, the generic rules the
 * page's class names, ids and link hrefs select from the engine's indexes, and the generic rules no exception can
 * touch (compiled once). Every element one of them matches is taken out of the tree, so the markdown leaves it out;
 * but not an inline element in running text (`inRunningText`): a link in a sentence stays a part of it.
 *
 * The engine is the extractor's own (`AdBlocker.serialize()`), deserialized here once per thread (a few ms; each
 * worker of the page-work pool and the inline path hold one). Of the extended selectors, a site's `:has-text()` rules
 * (EasyList's `#?#` rules with `:-abp-contains()`, read as uBlock reads them) are applied: the text of the element,
 * a string it contains or a `/regular expression/`, read within `MAX_TEXT_READ` a page. Those that need a live page
 * (`:upward()`, `:matches-css()`, `:xpath()`, ...) and scriptlets (`+js()`) are not: a selector css-select does not
 * understand is skipped. Generic extended rules (no site named) are not applied: each would read the text of every
 * element of its kind on every page.
 */
export class AdHider {
  private readonly engine: FiltersEngine;
  /** Each rule's selector, compiled on first use (null: not one css-select understands). */
  private readonly compiled = new Map<string, Query | null>();
  /** The generic rules no `#@#` exception names and no hostname limits: they hold on every page. */
  private readonly base: Query[] = [];
  /** `:has-text()` arguments, each as a test of a text (null: a regular expression that does not compile). */
  private readonly textTests = new Map<string, ((text: string) => boolean) | null>();
  /** What `:has-text()` may still read of the current page: characters of text and elements walked. */
  private textBudget = 0;
  /** css-select's options: `:has-text()` as a pseudo-class of ours. */
  private readonly selectOptions = {
    pseudos: { 'has-text': (el: Element, arg?: string | null) => this.hasText(el, arg ?? '') },
  };

  constructor(serialized: Uint8Array) {
    this.engine = FiltersEngine.deserialize(serialized);
    const cosmetics = this.engine.cosmetics;
    const unhidden = new Set(cosmetics.unhideIndex.getFilters().map((f) => f.getSelector()));
    for (const rule of cosmetics.genericRules.getFilters()) {
      if (rule.hasCustomStyle() || rule.isScriptInject() || rule.hasHostnameConstraint() || rule.isExtended()) continue;
      const selector = rule.getSelector();
      if (unhidden.has(selector)) continue;
      const query = this.query(selector);
      if (query) this.base.push(query);
    }
  }

  /** The selectors of the element-hiding rules that hold on this page (its URL and the features of its tree). */
  selectorsFor(root: ParentNode, url: string | undefined): { selectors: string[]; generic: boolean } {
    const { hostname, domain } = Request.fromRawDetails({ url: url ?? 'about:blank' });
    const features = pageFeatures(root);
    const { matches, allowGenericHides } = this.engine.matchCosmeticFilters({
      url: url ?? '',
      hostname,
      domain,
      classes: features.classes,
      ids: features.ids,
      hrefs: features.hrefs,
      getInjectionRules: false,
      getExtendedRules: true,
    });
    const selectors: string[] = [];
    for (const m of matches) {
      const rule = m.filter;
      if (!rule || m.exception || rule.isScriptInject() || rule.hasCustomStyle()) continue;
      if (rule.isExtended() && !rule.hasHostnameConstraint()) continue;
      selectors.push(rule.getSelector());
    }
    return { selectors, generic: allowGenericHides };
  }

  /** Takes out of the tree every element the page's element-hiding rules hide; returns how many were taken out. */
  hide(root: ParentNode, url: string | undefined): number {
    const { selectors, generic } = this.selectorsFor(root, url);
    const queries: Query[] = generic ? [...this.base] : [];
    for (const s of selectors) {
      const query = this.query(s);
      if (query) queries.push(query);
    }
    if (queries.length === 0) return 0;
    this.textBudget = MAX_TEXT_READ;
    const hidden: Element[] = [];
    // One walk; a hidden element's subtree is not looked into (it goes with it).
    const stack: AnyNode[] = [...root.children].reverse();
    while (stack.length > 0) {
      const node = stack.pop() as AnyNode;
      if (!isTag(node)) continue;
      if (HIDDEN_NEVER.has(node.name)) {
        if (node.name !== 'head') for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k]);
        continue;
      }
      if (!inRunningText(node) && queries.some((q) => q(node))) {
        hidden.push(node);
        continue;
      }
      for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k]);
    }
    for (const el of hidden) detach(el);
    return hidden.length;
  }

  private query(selector: string): Query | null {
    let query = this.compiled.get(selector);
    if (query === undefined) {
      try {
        query = compile<AnyNode, Element>(selector, this.selectOptions) as Query;
      } catch {
        query = null;
      }
      this.compiled.set(selector, query);
    }
    return query;
  }

  /**
   * `:has-text(arg)`: the element's text contains `arg`, or matches it when it is written `/pattern/flags` (uBlock's
   * reading). The text is read within what is left of the page's budget; past it, nothing more matches.
   */
  private hasText(el: Element, arg: string): boolean {
    let test = this.textTests.get(arg);
    if (test === undefined) {
      test = textTest(arg);
      this.textTests.set(arg, test);
    }
    if (test === null || this.textBudget <= 0) return false;
    const parts: string[] = [];
    const stack: AnyNode[] = [...el.children].reverse();
    while (stack.length > 0 && this.textBudget > 0) {
      const node = stack.pop() as AnyNode;
      this.textBudget--;
      if (node.type === 'text') {
        const data = (node as { data: string }).data.slice(0, this.textBudget);
        parts.push(data);
        this.textBudget -= data.length;
      } else if (isTag(node)) for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k]);
    }
    return test(parts.join(''));
  }
}

/**
 * What `:has-text()` reads of a page at most, in characters of text and elements walked (a few times an article's
 * text): a page cannot make its rules read the text of every element again under every ancestor.
 */
const MAX_TEXT_READ = 1_000_000;

/** A `:has-text()` argument as a test: a `/pattern/flags` regular expression, else the string it must contain. */
function textTest(arg: string): ((text: string) => boolean) | null {
  const re = /^\/(.+)\/([imsu]*)$/s.exec(arg);
  if (!re) return (text) => text.includes(arg);
  try {
    const pattern = new RegExp(re[1], re[2]);
    return (text) => pattern.test(text);
  } catch {
    return null;
  }
}

/** Elements a hiding rule never takes out: the document's frame (a rule on `body` or `html` would empty the page). */
const HIDDEN_NEVER = new Set(['html', 'head', 'body']);

/** Elements of running text (a link, an emphasis, an image in a sentence). */
const INLINE = new Set(['a', 'abbr', 'b', 'em', 'i', 'img', 'small', 'span', 'strong', 'sup', 'sub', 'u']);

/**
 * An inline element with text beside it in its parent: a part of a sentence (an affiliate link in a paragraph, hidden
 * by generic rules such as `[rel*="sponsored"]`). It is kept: taking it out would leave the sentence with a hole; an
 * ad is a container of its own.
 */
function inRunningText(el: Element): boolean {
  if (!INLINE.has(el.name)) return false;
  // Up through the inline elements it sits in (`<p>… <strong><a>deal</a></strong> …</p>`) to the first with text.
  for (let n: Element = el; ;) {
    const parent = n.parent;
    if (!parent) return false;
    if (parent.children.some((c) => c.type === 'text' && (c as { data: string }).data.trim() !== '')) return true;
    if (!isTag(parent) || !INLINE.has(parent.name)) return false;
    n = parent;
  }
}

/** What the engine's indexes are keyed by, as its content script collects it: class names, ids, links' hrefs. */
function pageFeatures(root: ParentNode): { classes: string[]; ids: string[]; hrefs: string[] } {
  const classes = new Set<string>();
  const ids = new Set<string>();
  const hrefs = new Set<string>();
  const stack: AnyNode[] = [...root.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    const { class: cls, id, href } = node.attribs;
    if (cls) for (const c of cls.split(/\s+/)) if (c !== '') classes.add(c);
    if (id) ids.add(id);
    if (href && node.name === 'a') hrefs.add(href);
    for (const child of node.children) stack.push(child);
  }
  return { classes: [...classes], ids: [...ids], hrefs: [...hrefs] };
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
