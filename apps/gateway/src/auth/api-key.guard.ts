import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TrawlError } from '@trawl/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiKeysService, type ApiPrincipal } from './api-keys.service.js';
import { API_KEY_QUERY_PARAM } from './api-key-in-query.decorator.js';
import { IS_PUBLIC } from './public.decorator.js';

export type AuthenticatedRequest = FastifyRequest & { principal?: ApiPrincipal };

/**
 * The key a request presents: the `x-api-key` header, else `Authorization: Bearer <key>` (what Firecrawl's and MCP's
 * clients send), else, on routes marked @ApiKeyInQuery(param), that query parameter. The same keys either way.
 */
export function presentedKey(
  headers: Record<string, string | string[] | undefined>,
  query: unknown,
  queryParam: string | undefined,
): string | undefined {
  const header = headers['x-api-key'];
  if (header !== undefined) return Array.isArray(header) ? header[0] : header;
  const authorization = headers.authorization;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(
    Array.isArray(authorization) ? (authorization[0] ?? '') : (authorization ?? ''),
  );
  if (bearer) return bearer[1];
  if (queryParam && typeof query === 'object' && query !== null) {
    const value = (query as Record<string, unknown>)[queryParam];
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') return first;
  }
  return undefined;
}

/**
 * Requires a valid key (presentedKey: `x-api-key`, `Authorization: Bearer`, or a marked route's query parameter) on
 * every route not marked @Public(). Missing, wrong or revoked: 401. The principal it sets is what KeyLimitsGuard
 * (registered after it) counts against.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const queryParam = this.reflector.getAllAndOverride<string | undefined>(API_KEY_QUERY_PARAM, [
      context.getHandler(),
      context.getClass(),
    ]);
    const key = presentedKey(request.headers, request.query, queryParam);
    if (key === undefined) {
      throw new TrawlError(
        'UNAUTHORIZED',
        queryParam
          ? `missing API key: pass ${queryParam} in the query, or an x-api-key header`
          : 'missing x-api-key header (or Authorization: Bearer <key>)',
        { field: queryParam ?? 'x-api-key' },
      );
    }
    const principal = await this.keys.authenticate(key);
    if (!principal) throw new TrawlError('UNAUTHORIZED', 'invalid API key', { field: 'x-api-key' });
    request.principal = principal;
    return true;
  }
}
