import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { BaseEnv } from './base.env.js';

export class GatewayEnv extends BaseEnv {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 8080;

  @IsString()
  HOST: string = '0.0.0.0';

  /** Bootstrap API keys, comma-separated (development and tests; production keys live in the key store). */
  @IsString()
  API_KEYS: string = '';

  /** Largest accepted request body, bytes. */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 5 * 1024 * 1024;

  /** Comma-separated origins allowed by CORS; empty turns CORS off. */
  @IsString()
  CORS_ORIGINS: string = '';

  /** Redis of the key store and the shared rate/concurrency counters. Empty: API_KEYS only, limits per process. */
  @IsString()
  @Matches(/^(rediss?:\/\/\S+)?$/, { message: 'REDIS_URL must be redis://host:port (or rediss://), or empty' })
  REDIS_URL: string = '';

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
}
