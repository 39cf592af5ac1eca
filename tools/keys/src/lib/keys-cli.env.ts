import { IsString, Matches, ValidateIf } from 'class-validator';
import { KEYS_ENCRYPTION_KEY_MESSAGE, KEYS_ENCRYPTION_KEY_PATTERN, RedisEnv } from '@trawl/config';

/** Redis of the key store when no topology variable is set. */
export const KEYS_CLI_DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** What the keys CLI reads from the environment: the gateway's Redis variables (RedisEnv), and its own. */
export class KeysCliEnv extends RedisEnv {
  /** `production` makes KEYS_ENCRYPTION_KEY required. */
  @IsString()
  NODE_ENV: string = 'development';

  /** Seals the webhook secrets the CLI writes (AES-256-GCM); the webhook dispatcher's. See docs/keys-and-limits.md. */
  @ValidateIf((e: KeysCliEnv) => e.NODE_ENV === 'production' || e.KEYS_ENCRYPTION_KEY !== '')
  @Matches(KEYS_ENCRYPTION_KEY_PATTERN, { message: KEYS_ENCRYPTION_KEY_MESSAGE })
  KEYS_ENCRYPTION_KEY: string = '';

  /** The master webhook secret (the dispatcher's WEBHOOK_SIGNING_SECRET); only `bootstrap-secret` needs it. */
  @IsString()
  @Matches(/^$|^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, {
    message: 'WEBHOOK_SIGNING_SECRET must be whsec_<base64 of >= 24 bytes> (or empty)',
  })
  WEBHOOK_SIGNING_SECRET: string = '';
}
