/** The route paths of the peers' APIs, served at the root rather than under the API prefix. */
export const COMPAT_ROOT_PATHS = ['v1/*path', 'v2/*path', 'search', 'search.json', 'mcp'] as const;

/** The peers whose APIs the gateway speaks beside its own (ADR 0024). */
export type CompatPeer = 'firecrawl' | 'serpapi' | 'mcp';

/**
 * Which peer's API a request path belongs to, or null for Trawl's own: `/v1/...` and `/v2/...` are Firecrawl's,
 * `/search` and `/search.json` SerpAPI's, `/mcp` MCP's. Decides the shape of errors raised before a route runs (bad
 * JSON, unknown path, wrong method) as well as in it.
 */
export function peerOfPath(url: string): CompatPeer | null {
  const path = url.split('?', 1)[0] ?? '';
  if (path.startsWith('/v1/') || path.startsWith('/v2/')) return 'firecrawl';
  if (path === '/search' || path === '/search.json') return 'serpapi';
  if (path === '/mcp') return 'mcp';
  return null;
}
