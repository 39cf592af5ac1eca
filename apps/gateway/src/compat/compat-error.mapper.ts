import { toErrorEnvelope } from '../envelope/error-envelope.mapper.js';
import { peerOfPath } from './compat-peer.policy.js';
import { toFirecrawlError } from './firecrawl/firecrawl-error.mapper.js';
import { toMcpHttpError } from './mcp/mcp-error.mapper.js';
import { toSerpApiError } from './serpapi/serpapi-error.mapper.js';

/**
 * The answer to an error on any path: in the shape of the peer whose API the path is (Firecrawl's
 * `{ success: false, error, code }`, SerpAPI's `{ error }`, MCP's JSON-RPC error), else Trawl's envelope.
 */
export function toErrorAnswer(url: string, error: unknown, requestId: string): { status: number; body: unknown } {
  const envelope = toErrorEnvelope(error, requestId);
  switch (peerOfPath(url)) {
    case 'firecrawl':
      return toFirecrawlError(envelope);
    case 'serpapi':
      return toSerpApiError(envelope);
    case 'mcp':
      return toMcpHttpError(envelope);
    default:
      return envelope;
  }
}
