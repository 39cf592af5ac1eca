import { IsString, Matches, ValidateIf } from 'class-validator';
import { KEYS_ENCRYPTION_KEY_MESSAGE, KEYS_ENCRYPTION_KEY_PATTERN } from '@trawl/config';

/** What the keys CLI reads from the environment. */
export class KeysCliEnv {
  /** Redis of the key store (the gateway's REDIS_URL). */
  @IsString()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be redis://host:port (or rediss://)' })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

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
