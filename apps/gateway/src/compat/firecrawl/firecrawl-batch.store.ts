import type { RedisClient } from '@trawl/redis';
import { BATCH_RETENTION_MS } from './firecrawl.constants.js';

/**
 * A Firecrawl batch as Trawl keeps it: which native tasks it is (task-service keeps their state and results; this is
 * only the index), who owns it, what the caller asked to be answered, and when it must be final.
 */
export interface FirecrawlBatch {
  id: string;
  /** The submitting key's id; the record is stored under it, so another key's lookup finds nothing. */
  owner: string;
  jobIds: string[];
  /** The Firecrawl formats to answer with (of the native task's markdown and html). */
  formats: string[];
  invalidURLs: string[];
  warnings: string[];
  createdAt: number;
  /** Past this, unfinished tasks are cancelled and the batch is `failed` (COMPAT_BATCH_DEADLINE_MS). */
  deadlineAt: number;
  /** Set by DELETE, or when the deadline cancelled what was left. */
  ended?: 'cancelled' | 'failed';
}

const PREFIX = 'trawl:compat:firecrawl-batch:';

/** What the store needs of a record: its id, its owner, and when it started (it is kept 24 h from then). */
export interface OwnedRecord {
  id: string;
  owner: string;
  createdAt: number;
}

/**
 * The index of Firecrawl batches in the gateway's Redis (REDIS_URL), kept as long as Firecrawl keeps a batch (24 h);
 * in the process's memory when the gateway has no Redis. Keyed by owner and id: a lookup is always by both.
 */
export class FirecrawlBatchStore<T extends OwnedRecord = FirecrawlBatch> {
  private readonly memory = new Map<string, { batch: T; expiresAt: number }>();

  /** `prefix` sets one kind of record apart from another (batches; crawls' Firecrawl side). */
  constructor(
    private readonly redis: RedisClient | null,
    private readonly prefix: string = PREFIX,
  ) {}

  private key(owner: string, id: string): string {
    return `${this.prefix}${owner}:${id}`;
  }

  async save(batch: T): Promise<void> {
    const ttl = Math.max(1000, batch.createdAt + BATCH_RETENTION_MS - Date.now());
    if (this.redis) {
      await this.redis.set(this.key(batch.owner, batch.id), JSON.stringify(batch), 'PX', ttl);
      return;
    }
    this.memory.set(this.key(batch.owner, batch.id), { batch, expiresAt: Date.now() + ttl });
  }

  async find(owner: string, id: string): Promise<T | null> {
    if (this.redis) {
      const raw = await this.redis.get(this.key(owner, id));
      return raw === null ? null : (JSON.parse(raw) as T);
    }
    const entry = this.memory.get(this.key(owner, id));
    if (!entry || entry.expiresAt <= Date.now()) return null;
    return entry.batch;
  }
}
