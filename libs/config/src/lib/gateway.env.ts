import { IsIn, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { BaseEnv } from './base.env.js';
import { withRedisEnv } from './redis.env.js';

/** The gateway's variables; Redis (key store, shared limits) is optional: no topology set, API_KEYS only. */
export class GatewayEnv extends withRedisEnv(BaseEnv) {
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

  /** Key of the queue dashboard at /admin/queues (header x-admin-key, or basic auth password). Empty: not mounted. */
  @IsString()
  @Matches(/^(\S{16,})?$/, { message: 'ADMIN_API_KEY must be at least 16 characters without spaces, or empty' })
  ADMIN_API_KEY: string = '';

  /** `true` (default): the queue dashboard only shows queues and jobs; `false` lets it retry, remove, pause, clean. */
  @IsIn(['true', 'false'], { message: 'BULL_BOARD_READ_ONLY must be true or false' })
  BULL_BOARD_READ_ONLY: 'true' | 'false' = 'true';
}
