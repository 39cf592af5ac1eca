import { createHmac } from 'node:crypto';
import type { RedisClient } from '@trawl/redis';
import { ApiKeyStore } from './api-key.store.js';
import { WEBHOOK_SECRET_PREFIX } from './key-material.util.js';
import type { SecretCipher } from './secret-cipher.service.js';

/** The bytes of a `whsec_<base64>` secret (what Standard Webhooks signs with). */
function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error('a webhook secret must be whsec_<base64>');
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/**
 * The webhook signing secret of a key that is not in the store (a bootstrap key from API_KEYS), derived from the
 * master secret: `whsec_` + base64(HMAC-SHA256(key = the master's bytes after `whsec_`, message = the key id, UTF-8)).
 * Distinct per key id, so no tenant can sign for another; reproducible by whoever holds the master secret (the
 * operator gives each tenant its own, e.g. with `npm run keys -- bootstrap-secret`). Knowing a derived secret tells
 * nothing of the master or of another key's secret (HMAC is a PRF).
 */
export function deriveWebhookSecret(masterSecret: string, keyId: string): string {
  const master = secretBytes(masterSecret);
  if (master.length < 24) throw new Error('the master webhook secret must hold at least 24 bytes');
  return WEBHOOK_SECRET_PREFIX + createHmac('sha256', master).update(keyId, 'utf8').digest('base64');
}

/**
 * The secret that signs the webhooks of a task submitted with key `keyId` (the `apiKeyId` stored with the task):
 * - a store key: its own secret from the store (decrypted with `cipher` when stored encrypted); a revoked key's secret
 *   is still returned, as its accepted tasks are still delivered;
 * - any other key id (a bootstrap key from API_KEYS, or no store: `redis` null): derived from `master`
 *   (WEBHOOK_SIGNING_SECRET) and the key id, see deriveWebhookSecret;
 * - no key id (a task submitted straight to task-service, never through the gateway): `master` itself.
 * Redis errors propagate (the caller retries the delivery later).
 */
export async function webhookSecretForKey(
  redis: RedisClient | null,
  keyId: string | undefined,
  master: string,
  cipher?: SecretCipher,
): Promise<string> {
  if (!keyId) return master;
  const stored = redis ? await new ApiKeyStore(redis, cipher).webhookSecret(keyId) : null;
  return stored || deriveWebhookSecret(master, keyId);
}
