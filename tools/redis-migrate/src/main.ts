import { loadEnv, RedisEnv } from '@trawl/config';
import { migrateLegacyKeyStore } from '@trawl/keys';
import { createRedisClient, describeRedisTopology, redisTopologyFromEnv } from '@trawl/redis';
import { migrateLegacyQueueKeys } from '@trawl/tasks';

/**
 * `npm run redis:migrate`: the one-time move of an upgrade to hash-tagged keys (docs/deploy.md, ADR 0014). Run it
 * once with every task-service, gateway and webhook-dispatcher stopped, against the Redis they use (the same REDIS_*
 * variables; REDIS_URL defaults to redis://127.0.0.1:6379). It moves the queues from `bull:<queue>:…` to
 * `bull:{<tag>}:<queue>:…` and the key store to `trawl:apikey:{store}:…`; running it again moves nothing.
 */
async function main(): Promise<number> {
  const env = loadEnv(RedisEnv);
  const topology = redisTopologyFromEnv(env, { defaultUrl: 'redis://127.0.0.1:6379' })!;
  const redis = createRedisClient(topology, { name: 'trawl-redis-migrate', role: 'command', lazyConnect: true });
  try {
    await redis.connect();
    console.log(`redis-migrate: ${describeRedisTopology(topology)}`);
    const queues = await migrateLegacyQueueKeys(redis);
    const keyStore = await migrateLegacyKeyStore(redis);
    console.log(
      `redis-migrate: moved ${queues.queueKeys} queue key(s), ${queues.outstandingIds} outstanding job id(s), ` +
        `${queues.publishedMarks} published mark(s), ${keyStore} key-store key(s)`,
    );
    return 0;
  } finally {
    redis.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`redis-migrate: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
