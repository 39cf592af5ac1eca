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
  /** DOM depth reached (capped at MAX_DOM_DEPTH). */
  maxDepth: number;
}

/** A fresh meter at zero. */
export function newScanMeter(): ScanMeter {
  return { chars: 0, nodes: 0, domReads: 0, maxDepth: 0 };
}

/** All work of a meter in one figure. */
export function workOf(meter: ScanMeter): number {
  return meter.chars + meter.nodes + meter.domReads;
}
