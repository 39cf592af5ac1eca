import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);
import { canonicalJson, LIMITS, TrawlError, type TaskSubmitReply, type TaskSubmitRequest } from '@trawl/contracts';
import type { RedisClient } from '@trawl/redis';
import { IDEMPOTENCY_KEYS } from './task-redis-keys.constants.js';

export interface TaskIdempotencyOptions {
  /** How long a key is remembered after its submission succeeded (24 h). */
  windowMs: number;
  /**
   * How long a claim lives without its submitter: renewed every third of it while the submission runs (however long
   * that takes), so only a claim whose submitter died runs out and frees the key.
   */
  claimMs: number;
  /** How long a second request with the same key waits for the first to finish before IDEMPOTENCY_KEY_IN_PROGRESS. */
  waitMs: number;
  pollMs: number;
}

export const DEFAULT_TASK_IDEMPOTENCY_OPTIONS: TaskIdempotencyOptions = {
  windowMs: LIMITS.idempotencyWindowMs,
  claimMs: 60_000,
  waitMs: 20_000,
  pollMs: 50,
};

/**
 * What is stored under an idempotency key: a claim while the first submission runs, then its reply, brotli-packed
 * (`packed`, base64): a 10,000-URL batch's reply is megabytes of JSON kept for 24 h, and compresses tenfold or more.
 * `reply` (unpacked) is how records written before packing look; they are still read.
 */
type IdempotencyRecord =
  | { state: 'pending'; fingerprint: string; token: string }
  | { state: 'done'; fingerprint: string; packed: string }
  | { state: 'done'; fingerprint: string; reply: TaskSubmitReply };

/** The reply brotli-packed, off the event loop (libuv's pool): a megabyte-size reply would stall it otherwise. */
async function pack(reply: TaskSubmitReply): Promise<string> {
  const json = Buffer.from(JSON.stringify(reply));
  const packed = await compress(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
  });
  return packed.toString('base64');
}

async function replyOf(record: Extract<IdempotencyRecord, { state: 'done' }>): Promise<TaskSubmitReply> {
  if ('reply' in record) return record.reply;
  return JSON.parse((await decompress(Buffer.from(record.packed, 'base64'))).toString()) as TaskSubmitReply;
}

/**
 * The fingerprint of a submission: its kind and its request with the defaults applied, so the same request sent
 * with its fields in another order, or with a default spelt out, is the same request.
 */
export function submissionFingerprint(req: Pick<TaskSubmitRequest, 'kind' | 'request'>): string {
  return createHash('sha256')
    .update(canonicalJson({ kind: req.kind, request: req.request }))
    .digest('hex');
}

const RELEASE_CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** Extends our claim (ARGV[1]) by ARGV[2] ms, only while it is still ours. */
const RENEW_CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/**
 * Idempotent batch submission (`Idempotency-Key`). The first request with a key claims it in Redis (SET NX) and
 * submits; its reply is stored for 24 h under the key. A later request with the key and the same request (same
 * fingerprint) gets that reply and creates nothing (stored brotli-packed: the task Redis must not evict, and megabytes
 * a batch for a day would crowd it); with another request, IDEMPOTENCY_KEY_REUSED (409). A request
 * that arrives while the first still runs waits for its reply (so two racing requests make one set of jobs), or
 * gets IDEMPOTENCY_KEY_IN_PROGRESS when it takes too long. The claim is renewed while the submission runs, so a slow
 * one keeps its key however long it takes. A submission that fails releases its claim, so a retry
 * may try again. Keys are scoped to the API key: the Redis key names the submitting key's id.
 */
export class TaskIdempotency {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: TaskIdempotencyOptions = DEFAULT_TASK_IDEMPOTENCY_OPTIONS,
  ) {}

  /** The Redis key of an idempotency key of an API key (hashed: the caller's key text is not stored). */
  redisKey(apiKeyId: string | undefined, idempotencyKey: string): string {
    const hash = createHash('sha256').update(idempotencyKey).digest('hex');
    return `${IDEMPOTENCY_KEYS}${apiKeyId ?? '-'}:${hash}`;
  }

  async run(
    apiKeyId: string | undefined,
    idempotencyKey: string,
    fingerprint: string,
    submit: () => Promise<TaskSubmitReply>,
  ): Promise<TaskSubmitReply> {
    const key = this.redisKey(apiKeyId, idempotencyKey);
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const token = randomUUID();
      const claim = JSON.stringify({ state: 'pending', fingerprint, token } satisfies IdempotencyRecord);
      const set = await this.redis.set(key, claim, 'PX', this.options.claimMs, 'NX');
      // A SET whose reply was lost (a failover) is sent again by the client and finds the claim it made itself: that
      // claim is ours. Read as another request's, this one would wait for itself and answer IN_PROGRESS for a minute.
      const raw = set === 'OK' ? null : await this.redis.get(key);
      const record = raw === null ? undefined : (JSON.parse(raw) as IdempotencyRecord);
      if (set === 'OK' || (record?.state === 'pending' && record.token === token)) {
        let reply: TaskSubmitReply;
        // A slow submission (a 10,000-URL batch on a busy Redis) must not outlive its claim: a retry would submit again.
        const renewal = setInterval(
          () => void this.redis.eval(RENEW_CLAIM, 1, key, claim, this.options.claimMs).catch(() => undefined),
          Math.max(1, Math.floor(this.options.claimMs / 3)),
        );
        try {
          reply = await submit();
        } catch (e) {
          await this.redis.eval(RELEASE_CLAIM, 1, key, claim).catch(() => undefined);
          throw e;
        } finally {
          clearInterval(renewal);
        }
        const done: IdempotencyRecord = { state: 'done', fingerprint, packed: await pack(reply) };
        await this.redis.set(key, JSON.stringify(done), 'PX', this.options.windowMs);
        return reply;
      }
      if (record === undefined) continue; // the first submission failed and released the key: claim it now
      if (record.fingerprint !== fingerprint) {
        throw new TrawlError(
          'IDEMPOTENCY_KEY_REUSED',
          'this Idempotency-Key was used with another request in the last 24 hours; use a new key for a new request',
          { field: 'Idempotency-Key' },
        );
      }
      if (record.state === 'done') return await replyOf(record);
      if (Date.now() >= deadline) {
        throw new TrawlError(
          'IDEMPOTENCY_KEY_IN_PROGRESS',
          'a request with this Idempotency-Key is still being submitted; retry it shortly',
          { field: 'Idempotency-Key' },
        );
      }
      await new Promise((r) => setTimeout(r, this.options.pollMs));
    }
  }
}
