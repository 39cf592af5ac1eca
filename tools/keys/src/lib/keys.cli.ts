import { parseArgs } from 'node:util';
import {
  bootstrapKeyId,
  deriveWebhookSecret,
  formatRateLimit,
  parseRateLimit,
  type ApiKeyRecord,
  type ApiKeyStore,
  type IssuedKey,
  type RateLimit,
} from '@trawl/keys';

export const DEFAULT_RATE = '600/60s';
export const DEFAULT_CONCURRENCY = 20;

export const USAGE = `Usage: npm run keys -- <command>

  create --name <name> [--rate 600/60s] [--concurrency 20] [--outstanding N]
                                                              issue a key (printed once); --outstanding: its cap of
                                                              queued plus running jobs (default: task-service's)
  list                                                        every key: id, name, limits, status
  rotate <id> [--webhook-secret]                              issue a new key for <id>; the old one stops at once
  revoke <id>                                                 the key stops working at once
  bootstrap-secret                                            a bootstrap key's id and webhook secret: reads the key
                                                              (from API_KEYS) on stdin; needs WEBHOOK_SIGNING_SECRET
  encrypt-secrets                                             seal secrets written in clear; needs KEYS_ENCRYPTION_KEY

Rates are <requests>/<window>, the window in s, m or h (600/60s, 100/1m, 5000/h).
Environment: REDIS_URL (default redis://127.0.0.1:6379) or REDIS_SENTINELS/REDIS_SENTINEL_NAME or
REDIS_CLUSTER_NODES, with REDIS_USERNAME, REDIS_PASSWORD, REDIS_TLS; KEYS_ENCRYPTION_KEY (seals webhook secrets; required
when NODE_ENV=production), WEBHOOK_SIGNING_SECRET (the dispatcher's master secret, for bootstrap-secret).`;

/** What some commands need beside the store. */
export interface KeysCliContext {
  /** The dispatcher's WEBHOOK_SIGNING_SECRET (bootstrap-secret derives from it). */
  masterSecret?: string;
  /** Standard input as text (bootstrap-secret reads the key from it). */
  readStdin?: () => Promise<string>;
}

/** A mistake in the command line: usage is printed with it. */
export class UsageError extends Error {}

/**
 * Runs one command of the keys CLI against `store`, writing to `out`. Returns the exit code. The key itself is printed
 * once, by create and rotate; list never shows keys or secrets.
 */
export async function runKeysCli(
  argv: string[],
  store: ApiKeyStore,
  out: (line: string) => void,
  context: KeysCliContext = {},
): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      rate: { type: 'string' },
      concurrency: { type: 'string' },
      outstanding: { type: 'string' },
      'webhook-secret': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, id, ...rest] = positionals;
  if (values.help || !command) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  switch (command) {
    case 'create': {
      if (!values.name?.trim()) throw new UsageError('create needs --name');
      const rate = parseRate(values.rate ?? DEFAULT_RATE);
      const concurrency = parseConcurrency(values.concurrency);
      const outstanding = values.outstanding === undefined ? undefined : parseWhole('outstanding', values.outstanding);
      const limits = { rate, concurrency, ...(outstanding !== undefined ? { outstanding } : {}) };
      printIssued(await store.create({ name: values.name, limits }), out, true);
      return 0;
    }
    case 'list': {
      printList(await store.list(), out);
      return 0;
    }
    case 'rotate': {
      if (!id) throw new UsageError('rotate needs the key id');
      printIssued(
        await store.rotate(id, { webhookSecret: values['webhook-secret'] }),
        out,
        values['webhook-secret'] === true,
      );
      return 0;
    }
    case 'revoke': {
      if (!id) throw new UsageError('revoke needs the key id');
      const record = await store.revoke(id);
      out(`Revoked ${record.id} (${record.name}) at ${record.revokedAt}.`);
      return 0;
    }
    case 'bootstrap-secret': {
      if (id) throw new UsageError('bootstrap-secret reads the key on stdin, not as an argument');
      if (!context.masterSecret) throw new UsageError('bootstrap-secret needs WEBHOOK_SIGNING_SECRET (the master)');
      const key = ((await context.readStdin?.()) ?? '').trim();
      if (!key) throw new UsageError('bootstrap-secret needs the bootstrap key on stdin');
      const keyId = bootstrapKeyId(key);
      out(`Bootstrap key ${keyId}`);
      out(`Webhook signing secret: ${deriveWebhookSecret(context.masterSecret, keyId)}`);
      return 0;
    }
    case 'encrypt-secrets': {
      if (id) throw new UsageError('encrypt-secrets takes no arguments');
      out(`Sealed ${await store.sealSecrets()} webhook secret(s) stored in clear.`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

function parseRate(value: string): RateLimit {
  try {
    return parseRateLimit(value);
  } catch (e) {
    throw new UsageError(`--${(e as Error).message}`);
  }
}

function parseWhole(option: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`--${option} must be a whole number ≥ 1, got "${value}"`);
  }
  return n;
}

function parseConcurrency(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CONCURRENCY;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`--concurrency must be a whole number ≥ 1, got "${value}"`);
  return n;
}

function printIssued({ record, key }: IssuedKey, out: (line: string) => void, showSecret: boolean): void {
  const outstanding = record.limits.outstanding !== undefined ? `, ${record.limits.outstanding} jobs outstanding` : '';
  out(
    `Key ${record.id} (${record.name}): ${formatRateLimit(record.limits.rate)}, ${record.limits.concurrency} in flight${outstanding}.`,
  );
  out(`API key (shown this once; only its SHA-256 is stored): ${key}`);
  if (showSecret) out(`Webhook signing secret: ${record.webhookSecret}`);
}

function printList(records: ApiKeyRecord[], out: (line: string) => void): void {
  if (records.length === 0) {
    out('No keys.');
    return;
  }
  const rows = [
    ['ID', 'NAME', 'RATE', 'CONCURRENCY', 'STATUS', 'CREATED'],
    ...records.map((r) => [
      r.id,
      r.name,
      formatRateLimit(r.limits.rate),
      String(r.limits.concurrency),
      r.revokedAt ? `revoked ${r.revokedAt}` : r.rotatedAt ? `active (rotated ${r.rotatedAt})` : 'active',
      r.createdAt,
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows)
    out(
      row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
}
