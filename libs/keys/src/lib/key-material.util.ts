import { createHash, randomBytes } from 'node:crypto';

/** Prefix of every API key the store issues (bootstrap keys from API_KEYS may look like anything). */
export const API_KEY_PREFIX = 'trawl_';
/** Prefix of webhook signing secrets, as the Standard Webhooks libraries expect (`whsec_` + base64). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Longest key the gateway will hash; anything longer is refused without a lookup. */
export const MAX_API_KEY_LENGTH = 256;

/** SHA-256 of a key, hex. The only form in which a key is stored or compared. */
export function digestKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * The id of a bootstrap key (from API_KEYS): the first 16 hex characters of its SHA-256. Not secret; what logs show,
 * what its tasks are stored with, and what its webhook secret is derived from (deriveWebhookSecret).
 */
export function bootstrapKeyId(key: string): string {
  return digestKey(key).slice(0, 16);
}

/** A new API key: `trawl_` + 32 random bytes, base64url (256 bits of entropy). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** A new webhook signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A new key id: `key_` + 16 hex characters. Not secret; stable across rotations; stored with jobs. */
export function generateKeyId(): string {
  return 'key_' + randomBytes(8).toString('hex');
}
