import * as s from './schema/json-schema.builder.js';

/**
 * A crawl planned from a prompt (ADR 0042): what the language model chose of a crawl's options, in the native crawl's
 * names and units (POST /crawl: `delay` in ms, `maxDepth` in link hops), checked against the crawl's own rules. The
 * options it may choose are the crawl's scope and size; never its concurrency, its pages' scrape options or its
 * webhook, which stay the caller's.
 */
export const CRAWL_PLAN_OPTIONS = s.named(
  'CrawlPlanOptions',
  s.object({
    includePaths: s.optional(s.arr(s.str())),
    excludePaths: s.optional(s.arr(s.str())),
    maxDepth: s.optional(s.int()),
    limit: s.optional(s.int()),
    sitemap: s.optional(s.enumOf(['include', 'skip', 'only'] as const)),
    allowSubdomains: s.optional(s.bool()),
    allowExternalLinks: s.optional(s.bool()),
    ignoreQueryParameters: s.optional(s.bool()),
    delay: s.optional(s.int('Least milliseconds between two requests to one host.')),
  }),
);
export type CrawlPlanOptions = s.Infer<typeof CRAWL_PLAN_OPTIONS>;

/** The crawl options a plan may set, in the order the model is told of them. */
export const CRAWL_PLAN_FIELDS = [
  'includePaths',
  'excludePaths',
  'maxDepth',
  'limit',
  'sitemap',
  'allowSubdomains',
  'allowExternalLinks',
  'ignoreQueryParameters',
  'delay',
] as const satisfies readonly (keyof CrawlPlanOptions)[];

/** Reply of `crawl.plan.v1` and `data` of POST /crawl/plan; `plan` of POST /crawl's answer when it had a prompt. */
export const CRAWL_PLAN = s.named(
  'CrawlPlan',
  s.object({
    url: s.str('The crawl’s start URL.'),
    options: s.ref(CRAWL_PLAN_OPTIONS),
    warnings: s.arr(
      s.str(
        'What the plan could not take or see: a value the model chose that breaks a crawl rule (left out), a site ' +
          'that could not be mapped.',
      ),
    ),
  }),
);
export type CrawlPlan = s.Infer<typeof CRAWL_PLAN>;

/** Reply of `crawl.plan.ready.v1`: the planner would take a plan for this key now (else it answers its error). */
export interface CrawlPlanReady {
  ready: true;
}

/** Bounds of crawl planning. */
export const CRAWL_PLAN_LIMITS = {
  /** Most characters of a prompt (Firecrawl's bound). */
  maxPromptChars: 10_000,
  /** Most of the site's URLs (from its map) shown to the model. */
  siteUrls: 120,
  /** Longest the site's map may take before the model is asked without it, ms. */
  mapTimeoutMs: 15_000,
  /** Longest a plan may take, the model's answer included, ms. */
  deadlineMs: 60_000,
} as const;
