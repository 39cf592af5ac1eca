/**
 * A crawl request with a plan's options filled in (ADR 0042): an option the caller gave (present, not null) is kept,
 * whatever the plan chose for it; the plan fills the others. `prompt` is taken off: the crawl runs on options. Names are
 * the request's own (the native crawl's, or Firecrawl's on its routes, where the plan is translated first).
 */
export function withPlan(given: Record<string, unknown>, planned: Record<string, unknown>): Record<string, unknown> {
  const { prompt: _prompt, ...request } = given;
  void _prompt;
  for (const [field, value] of Object.entries(planned)) {
    if (request[field] === undefined || request[field] === null) request[field] = value;
  }
  return request;
}
