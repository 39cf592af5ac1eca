import type { ErrorEnvelope } from '../../envelope/error-envelope.mapper.js';

/** JSON-RPC's "server error" range start; MCP's SDK answers transport failures in it too. */
export const MCP_SERVER_ERROR = -32000;

/**
 * An HTTP-level failure at `/mcp` (no or a bad key, rate limit, bad JSON) as MCP clients read it: the HTTP status, and
 * a JSON-RPC error object with no id (the request was never dispatched).
 */
export function toMcpHttpError(envelope: ErrorEnvelope): {
  status: number;
  body: { jsonrpc: '2.0'; error: { code: number; message: string }; id: null };
} {
  return {
    status: envelope.status,
    body: { jsonrpc: '2.0', error: { code: MCP_SERVER_ERROR, message: String(envelope.body.message) }, id: null },
  };
}
