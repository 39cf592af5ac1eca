import { loadEnv } from '@trawl/config';
import { ApiKeyStore, SecretCipher } from '@trawl/keys';
import { createRedisClient, redisTopologyFromEnv } from '@trawl/redis';
import { KEYS_CLI_DEFAULT_REDIS_URL, KeysCliEnv } from './lib/keys-cli.env.js';
import { USAGE, UsageError, runKeysCli } from './lib/keys.cli.js';

async function main(): Promise<number> {
  const env = loadEnv(KeysCliEnv);
  const topology = redisTopologyFromEnv(env, { defaultUrl: KEYS_CLI_DEFAULT_REDIS_URL })!;
  const redis = createRedisClient(topology, { name: 'trawl-keys-cli', role: 'command', lazyConnect: true });
  try {
    await redis.connect();
    const cipher = env.KEYS_ENCRYPTION_KEY ? new SecretCipher(env.KEYS_ENCRYPTION_KEY) : undefined;
    if (!cipher) console.error('keys: KEYS_ENCRYPTION_KEY is not set: webhook secrets are written in clear');
    return await runKeysCli(process.argv.slice(2), new ApiKeyStore(redis, cipher), (line) => console.log(line), {
      masterSecret: env.WEBHOOK_SIGNING_SECRET,
      readStdin,
    });
  } finally {
    redis.disconnect();
  }
}

/** Standard input as text (the API key for `bootstrap-secret`, kept off the command line and shell history). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage =
      error instanceof UsageError || String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    console.error(`keys: ${error instanceof Error ? error.message : String(error)}`);
    if (usage) console.error(USAGE);
    process.exit(usage ? 2 : 1);
  },
);
