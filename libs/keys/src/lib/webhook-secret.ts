import type { Redis } from 'ioredis';
import { ApiKeyStore } from './api-key.store.js';

/**
 * The secret that signs the webhooks of a task submitted with key `keyId` (the `apiKeyId` stored with the task): the
 * key's own secret from the store, or `fallback` (WEBHOOK_SIGNING_SECRET) for bootstrap keys from API_KEYS, for tasks
 * without a key and when there is no store (`redis` null). A revoked key's secret is still returned: its accepted tasks
 * are still delivered. Redis errors propagate (the caller retries the delivery later).
 */
export async function webhookSecretForKey(redis: Redis | null, keyId: string | undefined, fallback: string): Promise<string> {
  if (!redis || !keyId) return fallback;
  return (await new ApiKeyStore(redis).webhookSecret(keyId)) || fallback;
}
