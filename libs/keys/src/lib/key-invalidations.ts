import type { Redis } from 'ioredis';
import { KEY_EVENTS_CHANNEL } from './api-key.store.js';

/**
 * Listens for digests the store invalidated (revoked or rotated away) on a dedicated connection duplicated from
 * `redis`, and calls `onDigest` for each, so a cache can drop them at once instead of waiting out its TTL.
 * Resolves once subscribed; the returned function unsubscribes and closes the connection.
 */
export async function subscribeKeyInvalidations(redis: Redis, onDigest: (digest: string) => void): Promise<() => Promise<void>> {
  const subscriber = redis.duplicate();
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === KEY_EVENTS_CHANNEL) onDigest(message);
  });
  // Errors are retried by ioredis (and resubscribed on reconnect); keep them from being unhandled.
  subscriber.on('error', () => undefined);
  await subscriber.subscribe(KEY_EVENTS_CHANNEL);
  return async () => {
    await subscriber.quit().catch(() => subscriber.disconnect());
  };
}
