import type { RedisClient } from '@trawl/redis';
import { digestKey, generateApiKey, generateKeyId, generateWebhookSecret } from './key-material.util.js';
import type { KeyLimits } from './rate-limit.parser.js';
import { isSealed, type SecretCipher } from './secret-cipher.service.js';

/** An API key as stored: never the key itself, only its SHA-256 digest. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  /** SHA-256 of the current key, hex. */
  digest: string;
  limits: KeyLimits;
  /**
   * Signs this key's webhook deliveries (`whsec_` + base64). Stored sealed (AES-256-GCM) when the store has a cipher;
   * empty when it is stored sealed and this store has none (the gateway reads records, never secrets).
   */
  webhookSecret: string;
  createdAt: string;
  rotatedAt?: string;
  revokedAt?: string;
}

/** What `create` and `rotate` hand back: the record and the key, which exists nowhere else afterwards. */
export interface IssuedKey {
  record: ApiKeyRecord;
  key: string;
}

export interface CreateKeyInput {
  name: string;
  limits: KeyLimits;
}

/** Redis layout, under one prefix (Redis ACLs grant `trawl:apikey:*`). */
export const KEY_STORE_PREFIX = 'trawl:apikey:';
/**
 * Every key of the store carries the hash tag `{store}`, so a record, its digest index and the id set sit in one Redis
 * Cluster slot and the MULTIs and the script below that touch several of them stay legal on a Cluster.
 */
export const KEY_STORE_KEYS = `${KEY_STORE_PREFIX}{store}:`;
const recordKey = (id: string): string => `${KEY_STORE_KEYS}id:${id}`;
const digestIndexKey = (digest: string): string => `${KEY_STORE_KEYS}digest:${digest}`;
const ID_SET = `${KEY_STORE_KEYS}ids`;
/** Channel on which the store announces digests that stopped being valid (revoked or rotated away). */
export const KEY_EVENTS_CHANNEL = `${KEY_STORE_PREFIX}invalidated`;

/**
 * API keys in Redis. Each key is a hash `trawl:apikey:{store}:id:<id>` (name, digest, limits, webhook secret, dates) plus an
 * index `trawl:apikey:{store}:digest:<sha256>` → id that exists only while the key is valid. Revoking or rotating removes the
 * index entry and publishes the old digest on KEY_EVENTS_CHANNEL so gateways drop it from their caches at once.
 *
 * With a `cipher`, webhook secrets are written sealed (AES-256-GCM, bound to the key id); a secret written in clear
 * before encryption was turned on is still read, and sealed when its record is next written or by sealSecrets().
 */
export class ApiKeyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly cipher?: SecretCipher,
  ) {}

  async create(input: CreateKeyInput): Promise<IssuedKey> {
    const name = input.name.trim();
    if (!name) throw new Error('a key needs a name');
    const key = generateApiKey();
    const record: ApiKeyRecord = {
      id: generateKeyId(),
      name,
      digest: digestKey(key),
      limits: input.limits,
      webhookSecret: generateWebhookSecret(),
      createdAt: new Date().toISOString(),
    };
    await this.redis
      .multi()
      .hset(recordKey(record.id), this.toHash(record))
      .set(digestIndexKey(record.digest), record.id)
      .sadd(ID_SET, record.id)
      .exec()
      .then(checkExec);
    return { record, key };
  }

  /** Every key, valid and revoked, oldest first. */
  async list(): Promise<ApiKeyRecord[]> {
    const ids = await this.redis.smembers(ID_SET);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is ApiKeyRecord => r !== null).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    return this.fromHash(await this.redis.hgetall(recordKey(id)));
  }

  /** The valid key whose digest this is; null when there is none (unknown, rotated away or revoked). */
  async findByDigest(digest: string): Promise<ApiKeyRecord | null> {
    const id = await this.redis.get(digestIndexKey(digest));
    if (!id) return null;
    const record = await this.get(id);
    return record && !record.revokedAt && record.digest === digest ? record : null;
  }

  /**
   * Issues a new key for `id` and invalidates the old one at once. Name, limits and id stay; the webhook secret stays
   * too unless `webhookSecret` is asked for (receivers verify with it, so changing it is a separate decision).
   * Refused without the encryption key when the stored secret is sealed: this store cannot read it, and writing the
   * record back would replace it with an empty one (or, with `webhookSecret`, a clear one in a sealed store).
   */
  async rotate(id: string, options: { webhookSecret?: boolean } = {}): Promise<IssuedKey> {
    const current = await this.requireActive(id);
    if (!this.cipher && isSealed((await this.redis.hget(recordKey(id), 'webhookSecret')) ?? '')) {
      throw new Error(
        `key ${id} has a sealed webhook secret and KEYS_ENCRYPTION_KEY is not set: rotating without it would lose the secret`,
      );
    }
    const key = generateApiKey();
    const record: ApiKeyRecord = {
      ...current,
      digest: digestKey(key),
      rotatedAt: new Date().toISOString(),
      ...(options.webhookSecret ? { webhookSecret: generateWebhookSecret() } : {}),
    };
    await this.redis
      .multi()
      .del(digestIndexKey(current.digest))
      .hset(recordKey(id), this.toHash(record))
      .set(digestIndexKey(record.digest), id)
      .publish(KEY_EVENTS_CHANNEL, current.digest)
      .exec()
      .then(checkExec);
    return { record, key };
  }

  /** Revokes `id`: the key stops authenticating at once. The record stays (listed as revoked; its secret readable). */
  async revoke(id: string): Promise<ApiKeyRecord> {
    const current = await this.get(id);
    if (!current) throw new Error(`no key with id ${id}`);
    if (current.revokedAt) return current;
    const record: ApiKeyRecord = { ...current, revokedAt: new Date().toISOString() };
    await this.redis
      .multi()
      .del(digestIndexKey(current.digest))
      .hset(recordKey(id), 'revokedAt', record.revokedAt as string)
      .publish(KEY_EVENTS_CHANNEL, current.digest)
      .exec()
      .then(checkExec);
    return record;
  }

  /**
   * The webhook signing secret of key `id` (also of a revoked key: its accepted tasks still get delivered); null when
   * there is no such key. Throws when the secret is sealed and does not open, or this store has no cipher to open it.
   */
  async webhookSecret(id: string): Promise<string | null> {
    const stored = await this.redis.hget(recordKey(id), 'webhookSecret');
    if (!stored) return null;
    if (!isSealed(stored)) return stored;
    if (!this.cipher) throw new Error(`the webhook secret of ${id} is encrypted and KEYS_ENCRYPTION_KEY is not set`);
    return this.cipher.open(stored, id);
  }

  /**
   * Seals every webhook secret still stored in clear (records written before encryption at rest was turned on).
   * Idempotent; returns how many were sealed. Each is replaced only if it is still the clear value read (WATCH-free:
   * a compare-and-set in Lua), so a concurrent rotation is not overwritten.
   */
  async sealSecrets(): Promise<number> {
    const cipher = this.cipher;
    if (!cipher) throw new Error('sealing secrets needs KEYS_ENCRYPTION_KEY');
    let sealed = 0;
    for (const id of await this.redis.smembers(ID_SET)) {
      const stored = await this.redis.hget(recordKey(id), 'webhookSecret');
      if (!stored || isSealed(stored)) continue;
      const swapped = await this.redis.eval(
        "if redis.call('HGET', KEYS[1], 'webhookSecret') == ARGV[1] then redis.call('HSET', KEYS[1], 'webhookSecret', ARGV[2]) return 1 end return 0",
        1,
        recordKey(id),
        stored,
        cipher.seal(stored, id),
      );
      if (swapped === 1) sealed++;
    }
    return sealed;
  }

  private toHash(record: ApiKeyRecord): Record<string, string> {
    const cipher = this.cipher;
    return toHash(record, cipher ? (secret, id) => cipher.seal(secret, id) : (secret) => secret);
  }

  private fromHash(hash: Record<string, string>): ApiKeyRecord | null {
    const cipher = this.cipher;
    return fromHash(hash, (stored, id) => (cipher ? cipher.open(stored, id) : isSealed(stored) ? '' : stored));
  }

  private async requireActive(id: string): Promise<ApiKeyRecord> {
    const record = await this.get(id);
    if (!record) throw new Error(`no key with id ${id}`);
    if (record.revokedAt) throw new Error(`key ${id} is revoked`);
    return record;
  }
}

function toHash(r: ApiKeyRecord, seal: (secret: string, id: string) => string): Record<string, string> {
  return {
    id: r.id,
    name: r.name,
    digest: r.digest,
    ratePoints: String(r.limits.rate.points),
    rateDurationSec: String(r.limits.rate.durationSec),
    concurrency: String(r.limits.concurrency),
    ...(r.limits.outstanding !== undefined ? { outstanding: String(r.limits.outstanding) } : {}),
    webhookSecret: seal(r.webhookSecret, r.id),
    createdAt: r.createdAt,
    ...(r.rotatedAt ? { rotatedAt: r.rotatedAt } : {}),
    ...(r.revokedAt ? { revokedAt: r.revokedAt } : {}),
  };
}

function fromHash(h: Record<string, string>, open: (stored: string, id: string) => string): ApiKeyRecord | null {
  if (!h.id || !h.digest) return null;
  return {
    id: h.id,
    name: h.name ?? '',
    digest: h.digest,
    limits: {
      rate: { points: Number(h.ratePoints), durationSec: Number(h.rateDurationSec) },
      concurrency: Number(h.concurrency),
      ...(h.outstanding ? { outstanding: Number(h.outstanding) } : {}),
    },
    webhookSecret: h.webhookSecret ? open(h.webhookSecret, h.id) : '',
    createdAt: h.createdAt ?? '',
    ...(h.rotatedAt ? { rotatedAt: h.rotatedAt } : {}),
    ...(h.revokedAt ? { revokedAt: h.revokedAt } : {}),
  };
}

function checkExec(results: [Error | null, unknown][] | null): void {
  if (!results) throw new Error('key store transaction was aborted');
  const failed = results.find(([error]) => error);
  if (failed?.[0]) throw failed[0];
}
