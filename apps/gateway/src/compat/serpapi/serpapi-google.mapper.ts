import type { WebSearchResult } from '@trawl/contracts';
import { EMPTY_RESULTS_MESSAGE, GOOGLE_ORIGIN } from './serpapi.constants.js';
import type { SerpApiMapping } from './serpapi-params.mapper.js';

/** What every SerpAPI answer carries about the search itself. */
export interface SearchContext {
  /** The request's id (SerpAPI's search id). */
  id: string;
  createdAt: Date;
  /** Seconds the search took. */
  seconds: number;
  /** This server's `/search.json` URL, for links back (never with the key). */
  selfUrl: string;
}

function timestamp(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** SerpAPI's `search_metadata`. */
export function searchMetadata(ctx: SearchContext, googleUrl: string, status = 'Success'): Record<string, unknown> {
  const json = new URL(ctx.selfUrl);
  json.search = `?search_id=${ctx.id}`;
  return {
    id: ctx.id,
    status,
    json_endpoint: json.toString(),
    created_at: timestamp(ctx.createdAt),
    processed_at: timestamp(ctx.createdAt),
    google_url: googleUrl,
    total_time_taken: ctx.seconds,
  };
}

/** A link to this server with the given parameters (the key is never among them). */
function selfLink(ctx: SearchContext, params: Record<string, string>): string {
  const url = new URL(ctx.selfUrl);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

function googleLink(params: Record<string, string | number | undefined>): string {
  const url = new URL('/search', GOOGLE_ORIGIN);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  return url.toString();
}

/** engine=google's answer, from the native web search result (Trawl's own parse of the page). */
export function toGoogleAnswer(
  result: WebSearchResult,
  mapping: SerpApiMapping,
  ctx: SearchContext,
): Record<string, unknown> {
  const q = String(mapping.native.q ?? '');
  const start = Number(mapping.native.start ?? 0);
  const num = Number(mapping.native.num ?? 10);
  const googleUrl = googleLink({
    q,
    hl: mapping.given.hl,
    gl: mapping.given.gl,
    num: mapping.given.num,
    start: start || undefined,
    tbs: mapping.given.tbs,
  });
  const organic = result.results.map((r, i) => ({
    position: start + i + 1,
    title: r.title,
    link: r.link,
    displayed_link: r.displayLink,
    ...(r.favicon ? { favicon: r.favicon } : {}),
    ...(r.date ? { date: r.date } : {}),
    snippet: r.snippet,
    ...(r.snippetHighlightedWords.length > 0 ? { snippet_highlighted_words: r.snippetHighlightedWords } : {}),
    ...(r.sitelinks.inline.length + r.sitelinks.table.length > 0
      ? {
          sitelinks: {
            ...(r.sitelinks.inline.length > 0
              ? { inline: r.sitelinks.inline.map((s) => ({ title: s.title, link: s.link })) }
              : {}),
            ...(r.sitelinks.table.length > 0
              ? { expanded: r.sitelinks.table.map((s) => ({ title: s.title, link: s.link, snippet: s.snippet })) }
              : {}),
          },
        }
      : {}),
    ...(r.source ? { source: r.source } : {}),
  }));
  const answer: Record<string, unknown> = {
    search_metadata: searchMetadata(ctx, googleUrl),
    search_parameters: { ...mapping.given, engine: 'google', google_domain: 'google.com', device: 'desktop' },
    search_information: {
      organic_results_state: organic.length > 0 ? 'Results for exact spelling' : 'Fully empty',
      query_displayed: q,
    },
  };
  if (result.knowledgePanel) {
    const kp = result.knowledgePanel;
    answer.knowledge_graph = {
      title: kp.title,
      type: kp.type,
      description: kp.description,
      ...(kp.source ? { source: kp.source } : {}),
      ...(kp.image ? { header_images: [{ image: kp.image }] } : {}),
      ...Object.fromEntries(
        Object.entries(kp.attributes).map(([k, v]) => [
          k
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '_')
            .replace(/^_|_$/g, ''),
          v,
        ]),
      ),
    };
  }
  if (result.localResults && result.localResults.length > 0) {
    answer.local_results = {
      places: result.localResults.map((p) => ({
        position: p.position,
        title: p.title,
        ...(p.rating !== null ? { rating: p.rating } : {}),
        ...(p.reviews !== null ? { reviews: p.reviews } : {}),
        type: p.type,
        address: p.address,
      })),
    };
  }
  if (result.peopleAlsoAsk.length > 0) {
    answer.related_questions = result.peopleAlsoAsk.map((p) => ({
      question: p.question,
      snippet: p.answer,
      title: p.title,
      ...(p.url ? { link: p.url } : {}),
    }));
  }
  if (organic.length > 0) answer.organic_results = organic;
  if (result.relatedSearches.length > 0) {
    answer.related_searches = result.relatedSearches.map((r) => ({
      query: r.query,
      link: googleLink({ q: r.query }),
    }));
  }
  if (organic.length > 0) {
    const nextStart = start + num;
    const current = Math.floor(start / num) + 1;
    answer.pagination = { current, next: googleLink({ q, start: nextStart }) };
    // `given` never holds api_key: the link carries no key (the client adds its own).
    const params = mapping.given;
    answer.serpapi_pagination = {
      current,
      next_link: selfLink(ctx, { ...params, start: String(nextStart) }),
      next: selfLink(ctx, { ...params, start: String(nextStart) }),
    };
  } else {
    answer.error = EMPTY_RESULTS_MESSAGE;
  }
  return answer;
}
