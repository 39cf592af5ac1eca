import { IDEMPOTENCY_KEY_PATTERN, TrawlError } from '@trawl/contracts';
import type { FastifyRequest } from 'fastify';

/** This server's URL of `path`, as the client reached it (scheme and host, behind a proxy its forwarded ones). */
export function selfUrl(req: FastifyRequest, path: string): string {
  return `${req.protocol}://${req.host}${path}`;
}

/** Firecrawl's `x-idempotency-key` header, held to the native rule. */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const header = req.headers['x-idempotency-key'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw new TrawlError('VALIDATION_FAILED', 'x-idempotency-key must be 1-255 visible ASCII characters', {
      field: 'x-idempotency-key',
    });
  }
  return header;
}

/** The `skip` query parameter of a status page: a whole number, 0 when absent. */
export function skipOf(query: unknown): number {
  const raw = typeof query === 'object' && query !== null ? (query as Record<string, unknown>).skip : undefined;
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new TrawlError('VALIDATION_FAILED', 'skip must be a whole number', { field: 'skip' });
  }
  return n;
}
