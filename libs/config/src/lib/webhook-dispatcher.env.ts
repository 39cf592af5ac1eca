import { ArrayNotEmpty, IsArray, IsInt, IsNumber, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { NatsServiceEnv } from './base.env.js';
import { EnvDurationsMs } from './env-value.transforms.js';
import { withRedisEnv } from './redis.env.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

/** Base64 of exactly 32 bytes. */
export const KEYS_ENCRYPTION_KEY_PATTERN = /^[A-Za-z0-9+/]{43}=?$/;
export const KEYS_ENCRYPTION_KEY_MESSAGE =
  'KEYS_ENCRYPTION_KEY must be base64 of 32 bytes (openssl rand -base64 32); it is required when NODE_ENV=production';

/** The dispatcher's variables; Redis (the key store, for store keys' own signing secrets) is optional. */
export class WebhookDispatcherEnv extends withRedisEnv(NatsServiceEnv) {
  /**
   * Standard Webhooks master secret: `whsec_` then base64 of at least 24 random bytes. Tasks of a bootstrap key (and
   * of any key id the store does not hold) are signed with HMAC-SHA256(this secret's bytes, key id), one secret per
   * key (see docs/webhooks.md); only tasks submitted without a key id are signed with it directly.
   */
  @IsString()
  @Matches(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, {
    message: 'WEBHOOK_SIGNING_SECRET must be whsec_<base64 of >= 24 bytes>',
  })
  WEBHOOK_SIGNING_SECRET: string = '';

  /**
   * Delay before each retry of a failed delivery, comma-separated durations (`500ms`, `5s`, `10m`, `2h`). The number of
   * entries is the number of retries; after the last one the outcome is dead-lettered. Default: about 22 hours.
   * Read as milliseconds.
   */
  @EnvDurationsMs()
  @IsArray()
  @ArrayNotEmpty({ message: 'WEBHOOK_RETRY_SCHEDULE must be durations such as 5s,1m,1h' })
  @IsInt({ each: true, message: 'WEBHOOK_RETRY_SCHEDULE must be durations such as 5s,1m,1h' })
  WEBHOOK_RETRY_SCHEDULE: number[] = [5 * S, 30 * S, 2 * M, 10 * M, 30 * M, 1 * H, 3 * H, 6 * H, 12 * H];

  /** Random spread applied to each retry delay, as a fraction (0.2: ±20%). */
  @IsNumber()
  @Min(0)
  @Max(1)
  WEBHOOK_RETRY_JITTER: number = 0.2;

  /** Longest `Retry-After` honoured; a longer one is capped. */
  @IsInt()
  @Min(0)
  WEBHOOK_MAX_RETRY_AFTER_MS: number = 6 * 60 * 60 * 1000;

  /** Deadline of one delivery attempt (connect, send, response headers). */
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS: number = 10_000;

  /** Deliveries in flight at once. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_CONCURRENCY: number = 64;

  /**
   * Deliveries in flight at once to one receiver host (`host:port` of the webhook URL), so one tenant's hanging
   * receiver cannot take every slot. 0: a quarter of WEBHOOK_CONCURRENCY (16 by default).
   */
  @IsInt()
  @Min(0)
  @Max(10_000)
  WEBHOOK_HOST_CONCURRENCY: number = 0;

  /** Failures in a row (time-outs, network errors, 5xx) after which a receiver host is backed off as a whole. */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_CIRCUIT_FAILURES: number = 5;

  /** How long a failing host is first backed off (doubling while it keeps failing, up to 16 times), ms. */
  @IsInt()
  @Min(100)
  WEBHOOK_CIRCUIT_OPEN_MS: number = 30_000;

  /** Largest number of outcomes waiting for a retry (JetStream max_ack_pending of the consumer). */
  @IsInt()
  @Min(1)
  WEBHOOK_MAX_PENDING: number = 100_000;

  /** `production` makes KEYS_ENCRYPTION_KEY required (the image sets it). */
  @IsString()
  NODE_ENV: string = 'development';

  /**
   * Opens the webhook secrets the key store keeps encrypted (AES-256-GCM): base64 of 32 random bytes
   * (`openssl rand -base64 32`), the same as the keys CLI's. Required when NODE_ENV=production; elsewhere it may be
   * empty, and the service says at start-up that stored secrets are then in clear.
   */
  @ValidateIf((e: WebhookDispatcherEnv) => e.NODE_ENV === 'production' || e.KEYS_ENCRYPTION_KEY !== '')
  @Matches(KEYS_ENCRYPTION_KEY_PATTERN, { message: KEYS_ENCRYPTION_KEY_MESSAGE })
  KEYS_ENCRYPTION_KEY: string = '';
}
