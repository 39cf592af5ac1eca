import { loadEnv } from '@trawl/config';
import { ApiKeyStore } from '@trawl/keys';
import { Redis } from 'ioredis';
import { KeysCliEnv } from './lib/keys-cli.env.js';
import { USAGE, UsageError, runKeysCli } from './lib/keys-cli.js';

async function main(): Promise<number> {
  const env = loadEnv(KeysCliEnv);
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    return await runKeysCli(process.argv.slice(2), new ApiKeyStore(redis), (line) => console.log(line));
  } finally {
    redis.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = error instanceof UsageError || String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    console.error(`keys: ${error instanceof Error ? error.message : String(error)}`);
    if (usage) console.error(USAGE);
    process.exit(usage ? 2 : 1);
  },
);
