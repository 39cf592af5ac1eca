import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { csv, type GatewayEnv } from '@trawl/config';
import { GATEWAY_ENV } from '../gateway-env.token.js';

/** An authenticated caller. `id` is a non-secret fingerprint of the key (safe to log and to store with jobs). */
export interface ApiPrincipal {
  id: string;
}

/**
 * Looks up API keys. Keys come from `API_KEYS` (bootstrap, development); each is kept only as its SHA-256 digest and
 * compared in constant time. The key itself is never logged or stored.
 */
@Injectable()
export class ApiKeysService {
  private readonly digests: Buffer[];

  constructor(@Inject(GATEWAY_ENV) env: GatewayEnv) {
    this.digests = csv(env.API_KEYS).map(digest);
  }

  /** The principal of `key`, or null when it is not a valid key. */
  authenticate(key: string | undefined): ApiPrincipal | null {
    if (!key || key.length > 256) return null;
    const candidate = digest(key);
    let match = false;
    // Compare against every key, without an early exit, so timing does not tell how many keys matched or which.
    for (const d of this.digests) match = timingSafeEqual(d, candidate) || match;
    return match ? { id: candidate.toString('hex').slice(0, 16) } : null;
  }

  get configuredKeys(): number {
    return this.digests.length;
  }
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}
