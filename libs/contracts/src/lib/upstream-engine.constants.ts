/**
 * How an upstream extractor (search, maps, retail) gets its pages. An extension of the spec (docs/decisions/0005):
 * - `http`: a plain HTTP fetch, no scripts;
 * - `browser`: the page rendered by extractor-scrape's browser pool (SUBJECTS.renderPage);
 * - `auto`: plain HTTP first; when the answer is a wall (enable-JavaScript, consent, JavaScript challenge) or lacks
 *   the content the parser needs, the same URL rendered in a browser. The host is then remembered as needing one.
 */
export const UPSTREAM_ENGINES = ['http', 'browser', 'auto'] as const;
export type UpstreamEngine = (typeof UPSTREAM_ENGINES)[number];

/** OpenAPI description of the optional `engine` field of the upstream requests. */
export const UPSTREAM_ENGINE_DOC =
  'Extension of the spec: how the upstream page is fetched. `http`: plain HTTP; `browser`: rendered by the browser ' +
  'fleet; `auto`: HTTP first, a browser when the answer is a JavaScript wall, a consent page, a JavaScript challenge ' +
  'or lacks results. Defaults to the service configuration (SEARCH_ENGINE, MAPS_ENGINE, RETAIL_ENGINE: auto).';
