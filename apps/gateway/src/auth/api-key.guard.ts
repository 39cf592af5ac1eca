import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TrawlError } from '@trawl/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiKeysService, type ApiPrincipal } from './api-keys.service.js';
import { IS_PUBLIC } from './public.decorator.js';

export type AuthenticatedRequest = FastifyRequest & { principal?: ApiPrincipal };

/**
 * Requires a valid `x-api-key` header on every route not marked @Public(). Missing, wrong or revoked: 401. The
 * principal it sets is what KeyLimitsGuard (registered after it) counts against.
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
    const header = request.headers['x-api-key'];
    if (header === undefined) throw new TrawlError('UNAUTHORIZED', 'missing x-api-key header', { field: 'x-api-key' });
    const principal = await this.keys.authenticate(Array.isArray(header) ? header[0] : header);
    if (!principal) throw new TrawlError('UNAUTHORIZED', 'invalid API key', { field: 'x-api-key' });
    request.principal = principal;
    return true;
  }
}
