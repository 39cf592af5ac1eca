import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { GatewayEnv } from '@trawl/config';
import { TrawlError } from '@trawl/contracts';
import {
  ApiKeyCache,
  ApiKeyStore,
  bootstrapKeyId,
  MAX_API_KEY_LENGTH,
  digestKey,
  parseRateLimit,
  subscribeKeyInvalidations,
  type ApiKeyRecord,
  type KeyLimits,
} from '@trawl/keys';
import { GATEWAY_ENV } from '../gateway-env.token.js';
import { GatewayRedisService } from '../redis/gateway-redis.service.js';

/** An authenticated caller. `id` is not secret (safe to log and to store with jobs: the dispatcher signs by it). */
export interface ApiPrincipal {
  id: string;
  /** The key's name in the store; absent for bootstrap keys. */
  name?: string;
  limits: KeyLimits;
}

/**
 * Looks up API keys: first the bootstrap keys from `API_KEYS` (kept only as SHA-256 digests, compared in constant
 * time; default limits), then the key store in Redis by digest, through a short in-process cache that the store's
 * revoke/rotate announcements empty at once. The key itself is never logged or stored.
 */
@Injectable()
export class ApiKeysService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Keys');
  private readonly bootstrap: Buffer[];
  private readonly defaults: KeyLimits;
  private readonly cache: ApiKeyCache<ApiKeyRecord | null> | null;
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly redis: GatewayRedisService,
  ) {
    this.bootstrap = env.API_KEYS.map((k) => Buffer.from(digestKey(k), 'hex'));
    this.defaults = { rate: parseRateLimit(env.API_KEY_DEFAULT_RATE), concurrency: env.API_KEY_DEFAULT_CONCURRENCY };
    const client = redis.client;
    const store = client ? new ApiKeyStore(client) : null;
    this.cache = store
      ? new ApiKeyCache((digest) => store.findByDigest(digest), { ttlMs: env.API_KEY_CACHE_MS })
      : null;
  }

  async onModuleInit(): Promise<void> {
    const client = this.redis.client;
    const cache = this.cache;
    if (!client || !cache) return;
    // Without the subscription, a revoked key still works until its cache entry expires (API_KEY_CACHE_MS).
    const subscription = await subscribeKeyInvalidations(client, (digest) => cache.evict(digest));
    if (!subscription.subscribed) {
      this.logger.warn(
        `Redis is not answering: key revocations take effect within ${this.env.API_KEY_CACHE_MS} ms until the subscription is made`,
      );
    }
    this.unsubscribe = subscription.close;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.unsubscribe?.();
  }

  /** The principal of `key`, or null when it is not a valid key. A key-store outage is 503, not 401. */
  async authenticate(key: string | undefined): Promise<ApiPrincipal | null> {
    if (!key || key.length > MAX_API_KEY_LENGTH) return null;
    const hex = digestKey(key);
    const candidate = Buffer.from(hex, 'hex');
    let match = false;
    // Compare against every bootstrap key, without an early exit, so timing does not tell which matched.
    for (const d of this.bootstrap) match = timingSafeEqual(d, candidate) || match;
    if (match) return { id: bootstrapKeyId(key), limits: this.defaults };
    if (!this.cache) return null;
    let record: ApiKeyRecord | null;
    try {
      record = await this.cache.get(hex);
    } catch (cause) {
      throw new TrawlError('SERVICE_UNAVAILABLE', 'the API key store is unavailable; retry shortly', { cause });
    }
    return record ? { id: record.id, name: record.name, limits: record.limits } : null;
  }

  get configuredKeys(): number {
    return this.bootstrap.length;
  }
}
