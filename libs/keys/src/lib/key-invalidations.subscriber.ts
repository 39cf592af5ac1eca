import { duplicateRedisClient, type RedisClient } from '@trawl/redis';
import { KEY_EVENTS_CHANNEL } from './api-key.store.js';

export interface KeyInvalidationOptions {
  /** How long to wait for the subscription before going on without it (it completes when Redis answers). */
  subscribeTimeoutMs?: number;
}

/**
 * Listens for digests the store invalidated (revoked or rotated away) on a dedicated connection duplicated from
 * `redis`, and calls `onDigest` for each, so a cache can drop them at once instead of waiting out its TTL.
 * Resolves once subscribed, or after `subscribeTimeoutMs` with the subscription still pending while Redis is away
 * (it is made when Redis answers, and remade after every reconnect). The returned function closes the connection.
 */
export async function subscribeKeyInvalidations(
  redis: RedisClient,
  onDigest: (digest: string) => void,
  options: KeyInvalidationOptions = {},
): Promise<{ subscribed: boolean; close: () => Promise<void> }> {
  // Role `blocking` (no per-command retry limit): the SUBSCRIBE waits in the offline queue until Redis answers.
  const subscriber = duplicateRedisClient(redis, { name: 'trawl-key-invalidations', role: 'blocking' });
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === KEY_EVENTS_CHANNEL) onDigest(message);
  });
  let timer: NodeJS.Timeout | undefined;
  const subscribed = await Promise.race([
    subscriber.subscribe(KEY_EVENTS_CHANNEL).then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), options.subscribeTimeoutMs ?? 2000))),
  ]).finally(() => clearTimeout(timer));
  return {
    subscribed,
    close: async () => {
      // QUIT only on a live connection; while Redis is away it would wait for a reconnect that never comes.
      if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
      else subscriber.disconnect();
    },
  };
}
