import { CRAWL_LIMITS, CRAWL_PLAN_FIELDS, TrawlError, type CrawlPlanOptions } from '@trawl/contracts';

/** The options the model chose that hold to the crawl's rules, and what was said about the rest. */
export interface ReadPlan {
  options: CrawlPlanOptions;
  warnings: string[];
}

const NUMBER_BOUNDS = {
  maxDepth: [0, CRAWL_LIMITS.maxMaxDepth],
  limit: [1, CRAWL_LIMITS.maxLimit],
  delay: [0, CRAWL_LIMITS.maxDelayMs],
} as const;
const BOOLEANS = ['allowSubdomains', 'allowExternalLinks', 'ignoreQueryParameters'] as const;
const SITEMAP_MODES = ['include', 'skip', 'only'];
const KNOWN = new Set<string>(CRAWL_PLAN_FIELDS);

/** Why a pattern cannot be a crawl's, or undefined when it can (the rule of POST /crawl's IsRegexList). */
function patternFault(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'not a string';
  if (pattern.length === 0 || pattern.length > CRAWL_LIMITS.maxPatternLength)
    return `not 1-${CRAWL_LIMITS.maxPatternLength} characters`;
  try {
    new RegExp(pattern);
    return undefined;
  } catch {
    return 'not a valid regular expression';
  }
}

/** A pattern as a warning shows it: quoted, cut at 80 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/**
 * The crawl options in the model's answer (ADR 0042), each checked against the rules POST /crawl applies to a caller's:
 * a number beyond its bounds is held to them, a value of the wrong type or an option a plan may not set is left out,
 * and each is said in `warnings`; null is "not chosen". A pattern that breaks the rules makes the whole answer
 * LLM_ANSWER_INVALID: leaving an include pattern out could widen the crawl to the whole site, an exclude pattern let
 * in what was meant to stay out.
 */
export function crawlPlanOf(answer: Record<string, unknown>): ReadPlan {
  const options: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [field, value] of Object.entries(answer)) {
    if (value === null || value === undefined) continue;
    if (!KNOWN.has(field)) {
      warnings.push(`${field}: not an option a crawl plan sets; ignored`);
      continue;
    }
    if (field === 'includePaths' || field === 'excludePaths') {
      if (!Array.isArray(value)) {
        throw new TrawlError('LLM_ANSWER_INVALID', `the model’s ${field} is not a list of patterns`);
      }
      const faults = value
        .map((p, i) => ({ i, p, fault: patternFault(p) }))
        .filter((f): f is { i: number; p: unknown; fault: string } => f.fault !== undefined);
      if (faults.length > 0) {
        const named = faults.slice(0, 3).map((f) => `${field}[${f.i}] ${shown(f.p)}: ${f.fault}`);
        throw new TrawlError(
          'LLM_ANSWER_INVALID',
          `the model’s crawl plan has patterns a crawl cannot take: ${named.join('; ')}`,
        );
      }
      if (value.length > CRAWL_LIMITS.maxPatterns) {
        throw new TrawlError(
          'LLM_ANSWER_INVALID',
          `the model’s ${field} has ${value.length} patterns; a crawl takes at most ${CRAWL_LIMITS.maxPatterns}`,
        );
      }
      if (value.length > 0) options[field] = [...(value as string[])];
      continue;
    }
    if (field in NUMBER_BOUNDS) {
      const [min, max] = NUMBER_BOUNDS[field as keyof typeof NUMBER_BOUNDS];
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        warnings.push(`${field}: the model answered ${shown(value)}, not a whole number; left out`);
        continue;
      }
      const held = Math.min(max, Math.max(min, value));
      if (held !== value) warnings.push(`${field}: the model answered ${value}; held to ${held} (${min}-${max})`);
      options[field] = held;
      continue;
    }
    if ((BOOLEANS as readonly string[]).includes(field)) {
      if (typeof value === 'boolean') options[field] = value;
      else warnings.push(`${field}: the model answered ${shown(value)}, not true or false; left out`);
      continue;
    }
    // sitemap
    if (typeof value === 'string' && SITEMAP_MODES.includes(value)) options[field] = value;
    else warnings.push(`sitemap: the model answered ${shown(value)}, not one of ${SITEMAP_MODES.join(', ')}; left out`);
  }
  return { options: options as CrawlPlanOptions, warnings };
}
