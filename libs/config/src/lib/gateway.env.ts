import { IsArray, IsInt, IsNotEmpty, IsString, Matches, Max, Min } from 'class-validator';
import { LIMITS } from '@trawl/contracts';

/** Largest `maxAge` default, ms: the API's own bound. */
const MAX_CACHE_AGE_MS = LIMITS.maxCacheAgeMs;
import { BaseEnv, LOOPBACK_HOST } from './base.env.js';
import { EnvList } from './env-value.transforms.js';
import { withRedisEnv } from './redis.env.js';

/** The gateway's variables; Redis (key store, shared limits) is optional: no topology set, API_KEYS only. */
export class GatewayEnv extends withRedisEnv(BaseEnv) {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 8080;

  /**
   * Address the HTTP listener (API and its ops routes) binds: loopback unless configured, so a development start is
   * not reachable from the network; containers set `0.0.0.0` (the Dockerfile and the manifests do). ADR 0021.
   */
  @IsString()
  @IsNotEmpty()
  HOST: string = LOOPBACK_HOST;

  /** Bootstrap API keys, comma-separated (development and tests; production keys live in the key store). */
  @EnvList()
  @IsArray()
  @IsString({ each: true })
  API_KEYS: string[] = [];

  /** Largest accepted request body, bytes. */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 5 * 1024 * 1024;

  /** Comma-separated origins allowed by CORS; empty turns CORS off. */
  @EnvList()
  @IsArray()
  @IsString({ each: true })
  CORS_ORIGINS: string[] = [];

  /** Rate limit of bootstrap keys (API_KEYS), `<requests>/<window>` with the window in s, m or h. */
  @IsString()
  @Matches(/^\d+\/\d*[smh]$/, { message: 'API_KEY_DEFAULT_RATE must look like 600/60s' })
  API_KEY_DEFAULT_RATE: string = '600/60s';

  /** Most requests in flight per bootstrap key (API_KEYS). */
  @IsInt()
  @Min(1)
  API_KEY_DEFAULT_CONCURRENCY: number = 20;

  /** How long the gateway reuses a key-store lookup, ms (revocations also reach it at once over Redis pub/sub). */
  @IsInt()
  @Min(0)
  API_KEY_CACHE_MS: number = 5000;

  /**
   * Redis of the result cache (`maxAge`): another instance than the one holding task state, configured with a
   * `maxmemory` and an evicting policy (allkeys-lru). Empty: no cache (every call asks the upstream).
   */
  @IsString()
  @Matches(/^(rediss?:\/\/\S+)?$/, { message: 'CACHE_REDIS_URL must be redis://host:port (or rediss://), or empty' })
  CACHE_REDIS_URL: string = '';

  /** Largest result the cache stores, bytes (its JSON); larger results are answered but not stored. */
  @IsInt()
  @Min(1024)
  CACHE_MAX_ENTRY_BYTES: number = 2 * 1024 * 1024;

  /** `maxAge` of POST /extract/search when the request gives none, ms. */
  @IsInt()
  @Min(0)
  @Max(MAX_CACHE_AGE_MS)
  CACHE_MAX_AGE_MS_SEARCH: number = 0;

  /** `maxAge` of POST /extract/search/maps when the request gives none, ms. */
  @IsInt()
  @Min(0)
  @Max(MAX_CACHE_AGE_MS)
  CACHE_MAX_AGE_MS_MAPS: number = 0;

  /** `maxAge` of POST /extract when the request gives none, ms. */
  @IsInt()
  @Min(0)
  @Max(MAX_CACHE_AGE_MS)
  CACHE_MAX_AGE_MS_EXTRACT: number = 0;

  /** `maxAge` of POST /scrape when the request gives none, ms. */
  @IsInt()
  @Min(0)
  @Max(MAX_CACHE_AGE_MS)
  CACHE_MAX_AGE_MS_SCRAPE: number = 0;

  /**
   * Longest a batch started through a peer's API (Firecrawl's `POST /v2/batch/scrape`) stays unfinished, ms: past it,
   * its unfinished tasks are cancelled and the batch answers `failed`, so a client polling for a final state always
   * gets one (ADR 0024). Default 30 minutes.
   */
  @IsInt()
  @Min(1000)
  COMPAT_BATCH_DEADLINE_MS: number = 30 * 60 * 1000;
}
