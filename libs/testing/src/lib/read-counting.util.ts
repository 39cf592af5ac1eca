/** What a scan did to a string handed to it by `readCounted`. */
export interface ReadCount {
  /** Characters examined: one per character read, the span of each slice or search, the whole text per conversion. */
  chars: number;
  /**
   * Operations that took the whole text at once (a regular expression over it, `split`, `replace`, a conversion to a
   * plain string): a scan that runs one of these per occurrence of something is quadratic, and one of them alone can
   * backtrack quadratically inside the engine, where no count reaches.
   */
  wholeText: string[];
}

/** Methods that read one character at the position given. */
const ONE_CHAR = new Set(['charCodeAt', 'charAt', 'codePointAt', 'at']);
/** Methods whose cost is the span they return. */
const SPAN = new Set(['slice', 'substring', 'substr']);
/** Searches from a position: cost up to the match, or to the end when there is none. */
const SEARCH_FORWARD = new Set(['indexOf', 'includes', 'startsWith']);
const SEARCH_BACKWARD = new Set(['lastIndexOf', 'endsWith']);

/**
 * `text` as a value a scan can read like a string (`length`, `charCodeAt`, `slice`, `indexOf`…), counting the work
 * the scan does on it: the deterministic stand-in for "it runs in time proportional to the input", which a test
 * checks by comparing the counts on an input and on the same input eight times longer (never a clock). Anything that
 * takes the whole text at once (a regular expression, `split`, a conversion) is counted as reading all of it and
 * listed in `wholeText`.
 */
export function readCounted(text: string): { text: string; reads: ReadCount } {
  const reads: ReadCount = { chars: 0, wholeText: [] };
  const target = new String(text);
  const whole = (what: string): void => {
    reads.chars += text.length;
    reads.wholeText.push(what);
  };
  const proxy = new Proxy(target, {
    get(t, prop) {
      if (prop === 'length') return text.length;
      if (typeof prop === 'string' && /^\d+$/.test(prop)) {
        reads.chars += 1;
        return text[Number(prop)];
      }
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      const name = String(prop);
      return (...args: unknown[]): unknown => {
        const result = method.apply(text, args);
        if (ONE_CHAR.has(name)) reads.chars += 1;
        else if (SPAN.has(name)) reads.chars += (result as string).length;
        else if (SEARCH_FORWARD.has(name)) {
          const from = Math.max(0, Number(args[1] ?? 0) || 0);
          const found = name === 'indexOf' ? (result as number) : -1;
          reads.chars += (found >= 0 ? found + String(args[0]).length : text.length) - from;
        } else if (SEARCH_BACKWARD.has(name)) {
          const from = args[1] === undefined ? text.length : Math.min(text.length, Number(args[1]));
          const found = name === 'lastIndexOf' ? (result as number) : -1;
          reads.chars += from - Math.max(0, found);
        } else whole(name);
        return result;
      };
    },
  });
  return { text: proxy as unknown as string, reads };
}
