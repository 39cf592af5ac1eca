/**
 * Work a parse did, counted as it happens (tests pass one to prove a parse is linear in its input without timing
 * it; production passes none, and nothing is counted).
 */
export interface ScanMeter {
  /** Characters visited by the text scans (script stripping, assignment search, JSON literal matching, JSON.parse). */
  chars: number;
  /** DOM nodes built from the page. */
  nodes: number;
  /** Reads of the tree after the load: every parent, children, sibling, attributes and text read (selectors, walks). */
  domReads: number;
  /**
   * Entries of the HTML parser's stack of open elements its tag operations touch: an open tag moves the whole stack
   * (it is kept innermost first), a close tag scans it for its name and moves it once per element it closes.
   */
  stack: number;
  /** DOM depth reached (capped at MAX_DOM_DEPTH). */
  maxDepth: number;
  /**
   * false: `domReads` is not counted (every node's reads go through a counting getter, which makes a parse several
   * times slower: tests of 10 MB pages count the load and the scans only).
   */
  countReads?: boolean;
}

/** A fresh meter at zero. */
export function newScanMeter(): ScanMeter {
  return { chars: 0, nodes: 0, domReads: 0, stack: 0, maxDepth: 0 };
}

/** All work of a meter in one figure. */
export function workOf(meter: ScanMeter): number {
  return meter.chars + meter.nodes + meter.domReads + meter.stack;
}
