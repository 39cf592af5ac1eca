import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { GatewayEnv } from '@trawl/config';
import { LIMITS } from '@trawl/contracts';
import { createRedisClient, standaloneRedisTopology, type RedisClient } from '@trawl/redis';
import type { FastifyReply } from 'fastify';
import { GATEWAY_ENV } from '../gateway.tokens.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import type { RawJson } from '../validation/raw-json.serializer.js';
import { cacheKey, ResultCache, type CachedOperation } from './result.cache.js';
import { cacheUse, carriesCredentials, type CacheAsk } from './result-cache.policy.js';

/** host:port of a redis:// URL, for telling two instances apart. */
function instanceOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return url;
  }
}

/**
 * The gateway's result cache (`maxAge` on /extract/search, /extract/search/maps, /extract and /scrape) on its own
 * Redis, CACHE_REDIS_URL: never the instance of task state, whose `noeviction` policy must not change, while the
 * cache's must evict (ADR 0016). Entries are scoped to the API key; only what a caller or the operator asked to keep
 * is kept, and nothing of a request with credentials unless its caller says so (ADR 0021). Off when CACHE_REDIS_URL
 * is empty.
 */
@Injectable()
export class ResultCacheService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ResultCache');
  private readonly redis: RedisClient | null;
  private readonly cache: ResultCache | null;
  private readonly defaults: Record<CachedOperation, number>;
  /** host:port of the cache's Redis, for log lines. */
  private readonly where: string = '';

  constructor(@Inject(GATEWAY_ENV) env: GatewayEnv) {
    this.defaults = {
      search: env.CACHE_MAX_AGE_MS_SEARCH,
      maps: env.CACHE_MAX_AGE_MS_MAPS,
      extract: env.CACHE_MAX_AGE_MS_EXTRACT,
      scrape: env.CACHE_MAX_AGE_MS_SCRAPE,
    };
    if (!env.CACHE_REDIS_URL) {
      this.redis = null;
      this.cache = null;
      return;
    }
    this.where = instanceOf(env.CACHE_REDIS_URL);
    if (env.REDIS_URL && instanceOf(env.REDIS_URL) === this.where) {
      throw new Error(
        'CACHE_REDIS_URL must name another Redis instance than REDIS_URL: the cache needs an evicting maxmemory-policy, which would evict the state kept there',
      );
    }
    // A cache that is away must not hold requests up (role `cache`: no offline queue, a short command timeout, one try).
    this.redis = createRedisClient(standaloneRedisTopology(env.CACHE_REDIS_URL), {
      name: 'trawl-gateway-cache',
      role: 'cache',
    });
    this.cache = new ResultCache(this.redis, {
      maxEntryBytes: env.CACHE_MAX_ENTRY_BYTES,
      ttlMs: LIMITS.maxCacheAgeMs,
      onError: (message, e) => this.logger.warn(`${message}: ${e instanceof Error ? e.message : String(e)}`),
    });
  }

  async onModuleInit(): Promise<void> {
    if (!this.redis) {
      this.logger.log(
        'CACHE_REDIS_URL is not set: no result cache, `maxAge` is accepted and every call asks the upstream',
      );
      return;
    }
    try {
      if (this.redis.status !== 'ready') {
        await Promise.race([
          new Promise((r) => this.redis?.once('ready', r)),
          new Promise((_, reject) => setTimeout(() => reject(new Error('not reachable')), 2000).unref()),
        ]);
      }
      const [, maxmemory] = (await this.redis.config('GET', 'maxmemory')) as string[];
      const [, policy] = (await this.redis.config('GET', 'maxmemory-policy')) as string[];
      const bounded =
        maxmemory !== undefined && maxmemory !== '0' && policy !== undefined && policy.startsWith('allkeys-');
      const line = `result cache on Redis ${this.where} (maxmemory ${maxmemory}, ${policy})`;
      if (bounded) this.logger.log(line);
      else
        this.logger.warn(
          `${line}: set a maxmemory and maxmemory-policy allkeys-lru, or the cache grows until its entries expire (24 h)`,
        );
    } catch (e) {
      this.logger.warn(
        `result cache on Redis ${this.where}: its limits could not be read (${e instanceof Error ? e.message : String(e)})`,
      );
    }
  }

  /**
   * Answers `load()` through the cache: a stored result of the same request of the same key at most `maxAge` ms old
   * (the operation's default when absent) is answered as it is, with `Age` (s) and `X-Trawl-Cache-Age-Ms` headers and
   * `X-Trawl-Cache: hit`; otherwise the upstream's answer is answered with `X-Trawl-Cache: miss`, and kept only when
   * the call asked for it (`cacheUse`: a request with credentials never without `storeInCache: true`).
   */
  async serve<T>(
    operation: CachedOperation,
    req: AuthenticatedRequest,
    res: FastifyReply,
    request: object,
    ask: CacheAsk,
    load: () => Promise<T>,
  ): Promise<T> {
    if (!this.cache) return load();
    const use = cacheUse(ask, this.defaults[operation], carriesCredentials(request));
    if (use.readMaxAgeMs === 0 && !use.store) {
      void res.header('x-trawl-cache', 'miss');
      return load();
    }
    const key = cacheKey(operation, req.principal?.id ?? '-', request);
    const { value, ageMs } = await this.cache.through(key, use.readMaxAgeMs, use.store, load);
    if (ageMs === null) void res.header('x-trawl-cache', 'miss');
    else void res.headers({ 'x-trawl-cache': 'hit', age: Math.floor(ageMs / 1000), 'x-trawl-cache-age-ms': ageMs });
    return value;
  }

  /**
   * As `serve`, for a route that can forward the upstream's answer as the JSON text it came in: when the call neither
   * reads nor keeps a cached answer, `loadRaw()` is answered as it is (never parsed, never serialised again by the
   * gateway); otherwise the call goes through the cache with `load()`, exactly as `serve`.
   */
  async serveRaw<T>(
    operation: CachedOperation,
    req: AuthenticatedRequest,
    res: FastifyReply,
    request: object,
    ask: CacheAsk,
    load: () => Promise<T>,
    loadRaw: () => Promise<RawJson>,
  ): Promise<T | RawJson> {
    if (!this.cache) return loadRaw();
    const use = cacheUse(ask, this.defaults[operation], carriesCredentials(request));
    if (use.readMaxAgeMs === 0 && !use.store) {
      void res.header('x-trawl-cache', 'miss');
      return loadRaw();
    }
    return this.serve(operation, req, res, request, ask, load);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis?.disconnect());
    else this.redis.disconnect();
  }
}
