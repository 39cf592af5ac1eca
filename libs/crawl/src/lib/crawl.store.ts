import { randomUUID } from 'node:crypto';
import type { CrawlRequestDto, CrawlStatus } from '@trawl/contracts';
import type { RedisClient } from '@trawl/redis';
import {
  ACTIVE_CRAWL_OWNERS_KEY,
  ACTIVE_CRAWLS_KEY,
  crawlKeys,
  ownerActiveCrawlsKey,
  type CrawlKeys,
} from './crawl-redis-keys.constants.js';

/** A frontier item: a page URL and its link depth, or the seed (robots.txt, sitemaps, the start URL). */
export type FrontierItem = { k: 'page'; u: string; d: number } | { k: 'seed' };

/** A leased item: what to do and the lease's member (to settle or give it back). */
export interface Lease {
  item: FrontierItem;
  member: string;
  /** How many times this URL was leased (1 the first time). */
  tries: number;
}

/** A crawl's record (its meta hash, read). */
export interface CrawlMeta {
  id: string;
  owner: string;
  request: CrawlRequestDto;
  status: CrawlStatus;
  total: number;
  completed: number;
  failed: number;
  documents: number;
  createdAt: number;
  endedAt?: number;
  error?: { code: string; message: string };
  fleetAwaySince?: number;
}

/** Owner of crawls started without a key (straight to task-service). */
export const NO_OWNER = '-';

const ITEM_KEYS = (k: CrawlKeys) => [
  k.meta,
  k.frontier,
  k.seen,
  k.leases,
  k.tries,
  k.docs,
  k.published,
  k.robots,
  k.errors,
  k.blocked,
];

/** Most error entries and robots-blocked URLs a crawl keeps (each; the first ones: a crawl's errors are alike). */
export const CRAWL_ERRORS_KEPT = 1000;

/**
 * Frees what an ended crawl no longer needs: all but its meta and its errors and blocked URLs, which expire after the
 * retention. KEYS: ITEM_KEYS.
 */
const CLEANUP_LUA = `
local function cleanup(retention)
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
  redis.call('EXPIRE', KEYS[1], retention)
  redis.call('EXPIRE', KEYS[9], retention)
  redis.call('EXPIRE', KEYS[10], retention)
end
`;

/** What a settle notes beside its outcome: a page's error, or URLs robots.txt kept the crawl from. */
export interface SettleNotes {
  error?: { url: string; code: string; error: string };
  blocked?: readonly string[];
}

/** A page that ended in an error, as kept (at: epoch ms). */
export interface CrawlErrorEntry {
  url: string;
  code: string;
  error: string;
  at: number;
}

/**
 * Admits URLs: while the crawl is scraping and under its limit, each URL not seen before is marked seen and appended
 * to the frontier. ARGV: limit, then pairs (url, item). Answers how many were admitted.
 */
const ADMIT = `
if redis.call('HGET', KEYS[1], 'status') ~= 'scraping' then return 0 end
local limit = tonumber(ARGV[1])
local total = tonumber(redis.call('HGET', KEYS[1], 'total') or '0')
local added = 0
for i = 2, #ARGV, 2 do
  if total >= limit then break end
  if redis.call('SADD', KEYS[3], ARGV[i]) == 1 then
    redis.call('RPUSH', KEYS[2], ARGV[i + 1])
    total = total + 1
    added = added + 1
  end
end
if added > 0 then redis.call('HSET', KEYS[1], 'total', total) end
return added
`;

/**
 * Leases the next item: expired leases (their worker died) go back to the front first; then the first item is taken
 * and held until now + leaseMs. ARGV: now, leaseMs, token. Answers {item, member, tries}, {'ended'} when the crawl
 * no longer runs, or {'idle', leasesHeld} when nothing is to do now.
 */
const LEASE = `
if redis.call('HGET', KEYS[1], 'status') ~= 'scraping' then return {'ended'} end
local now = tonumber(ARGV[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 50)
for _, m in ipairs(expired) do
  redis.call('ZREM', KEYS[4], m)
  redis.call('LPUSH', KEYS[2], string.sub(m, string.find(m, ' ') + 1))
end
local item = redis.call('LPOP', KEYS[2])
if not item then return {'idle', redis.call('ZCARD', KEYS[4])} end
local member = ARGV[3] .. ' ' .. item
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[2]), member)
local tries = redis.call('HINCRBY', KEYS[5], item, 1)
return {'item', member, tries}
`;

/**
 * Settles a lease: ARGV member, outcome (document; none: settled without one, a duplicate or out of scope; error; dropped: the seed, not counted), document key, now, retention s, most
 * notes kept, an error entry (JSON, or ''), then robots-blocked URLs (SettleNotes; noted only by the lease's holder). A
 * lease no longer held (it expired and another worker has the item) changes nothing: 'lost'. When the frontier and
 * the leases are empty, the crawl ends (completed, unless cancelled or failed before) and is cleaned up: 'ended'.
 */
const SETTLE = `${CLEANUP_LUA}
if redis.call('ZREM', KEYS[4], ARGV[1]) == 0 then return 'lost' end
local kept = tonumber(ARGV[6])
if ARGV[7] ~= '' and redis.call('LLEN', KEYS[9]) < kept then redis.call('RPUSH', KEYS[9], ARGV[7]) end
for i = 8, #ARGV do
  if redis.call('SCARD', KEYS[10]) >= kept then break end
  redis.call('SADD', KEYS[10], ARGV[i])
end
local outcome = ARGV[2]
if outcome ~= 'dropped' then redis.call('HINCRBY', KEYS[1], 'completed', 1) end
if outcome == 'error' then redis.call('HINCRBY', KEYS[1], 'failed', 1) end
if outcome == 'document' and redis.call('SADD', KEYS[7], ARGV[3]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'documents', 1)
end
redis.call('HDEL', KEYS[5], string.sub(ARGV[1], string.find(ARGV[1], ' ') + 1))
local status = redis.call('HGET', KEYS[1], 'status')
if redis.call('ZCARD', KEYS[4]) > 0 then return 'ok' end
if status == 'scraping' then
  if redis.call('LLEN', KEYS[2]) > 0 then return 'ok' end
  redis.call('HSET', KEYS[1], 'status', 'completed', 'endedAt', ARGV[4])
end
cleanup(tonumber(ARGV[5]))
return 'ended'
`;

/** Gives a lease's item back to the frontier. ARGV: member, LPUSH|RPUSH, retention s, 1 to not count the try. */
const REQUEUE = `${CLEANUP_LUA}
if redis.call('ZREM', KEYS[4], ARGV[1]) == 0 then return 0 end
local item = string.sub(ARGV[1], string.find(ARGV[1], ' ') + 1)
if ARGV[4] == '1' then redis.call('HINCRBY', KEYS[5], item, -1) end
if redis.call('HGET', KEYS[1], 'status') == 'scraping' then
  redis.call(ARGV[2], KEYS[2], item)
elseif redis.call('ZCARD', KEYS[4]) == 0 then
  cleanup(tonumber(ARGV[3]))
end
return 1
`;

/** Keeps a lease: ARGV member, until. */
const RENEW = `return redis.call('ZADD', KEYS[4], 'XX', 'CH', ARGV[2], ARGV[1])`;

/**
 * Ends a scraping crawl as ARGV status (cancelled, failed) with an error; no new page starts. Cleans up at once when
 * no page is in flight, else the last settle does. ARGV: status, now, code, message, retention s.
 */
const END = `${CLEANUP_LUA}
if redis.call('HGET', KEYS[1], 'status') ~= 'scraping' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'endedAt', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'errorCode', ARGV[3], 'errorMessage', ARGV[4]) end
redis.call('DEL', KEYS[2])
if redis.call('ZCARD', KEYS[4]) == 0 then cleanup(tonumber(ARGV[5])) end
return 1
`;

/**
 * Claims a document key for a page: the first page to name it owns it. ARGV: document key, the page's URL. Answers
 * 'new' (this page's: store it), 'stored' (this page's, already in the stream: a retry after a crash), 'duplicate'.
 */
const CLAIM_DOCUMENT = `
local owner = redis.call('HGET', KEYS[6], ARGV[1])
if not owner then
  redis.call('HSET', KEYS[6], ARGV[1], ARGV[2])
  return 'new'
end
if owner ~= ARGV[2] then return 'duplicate' end
if redis.call('SISMEMBER', KEYS[7], ARGV[1]) == 1 then return 'stored' end
return 'new'
`;

/**
 * Lists a recorded crawl among the active ones, unless its owner already has `cap` active (0: no cap). KEYS: the
 * active set, the id → owner hash, the owner's set (one slot, `{crawls}`). ARGV: id, owner, cap. Answers 1 or 0.
 */
const ACTIVATE = `
local cap = tonumber(ARGV[3])
if cap > 0 and redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 0 and redis.call('SCARD', KEYS[3]) >= cap then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`;

/** Takes a crawl off the active ones. KEYS: as ACTIVATE's. ARGV: id. */
const DEACTIVATE = `
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
`;

/** The active crawls of each key; crawls listed before owners were recorded are under NO_OWNER. */
export type ActiveCrawls = Map<string, string[]>;

export interface CrawlStoreOptions {
  /** How long an ended crawl's record (status, counters) is kept, s. */
  retentionSec: number;
  now?: () => number;
}

/**
 * A crawl's state in the task Redis (ADR 0026): its record, frontier, seen-set, leases and document claims, all under
 * its hash tag and changed by scripts, so every replica's workers share one crawl and a worker that dies mid-page
 * loses nothing (its lease expires and the item goes back to the frontier).
 */
export class CrawlStore {
  private readonly now: () => number;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: CrawlStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Records a new crawl with the seed as its only item, and lists it among the active crawls, unless its owner has
   * `maxActive` crawls running already (0: no cap): then nothing is left recorded and the answer is false.
   */
  async create(id: string, owner: string | undefined, request: CrawlRequestDto, maxActive = 0): Promise<boolean> {
    const k = crawlKeys(id);
    await this.redis
      .multi()
      .hset(k.meta, {
        owner: owner || NO_OWNER,
        request: JSON.stringify(request),
        status: 'scraping',
        total: 0,
        completed: 0,
        failed: 0,
        documents: 0,
        createdAt: this.now(),
      })
      .rpush(k.frontier, JSON.stringify({ k: 'seed' } satisfies FrontierItem))
      .exec();
    // Recorded first, then listed: a replica that dies in between leaves a record no worker looks at (never a listed
    // crawl without a record). Refused by the cap: the record goes.
    const who = owner || NO_OWNER;
    const listed = await this.redis.eval(
      ACTIVATE,
      3,
      ACTIVE_CRAWLS_KEY,
      ACTIVE_CRAWL_OWNERS_KEY,
      ownerActiveCrawlsKey(who),
      id,
      who,
      maxActive,
    );
    if (Number(listed) === 1) return true;
    await this.redis.del(k.meta, k.frontier);
    return false;
  }

  async meta(id: string): Promise<CrawlMeta | undefined> {
    const h = await this.redis.hgetall(crawlKeys(id).meta);
    if (!h.status || !h.request) return undefined;
    return {
      id,
      owner: h.owner ?? NO_OWNER,
      request: JSON.parse(h.request) as CrawlRequestDto,
      status: h.status as CrawlStatus,
      total: Number(h.total ?? 0),
      completed: Number(h.completed ?? 0),
      failed: Number(h.failed ?? 0),
      documents: Number(h.documents ?? 0),
      createdAt: Number(h.createdAt ?? 0),
      ...(h.endedAt ? { endedAt: Number(h.endedAt) } : {}),
      ...(h.errorCode ? { error: { code: h.errorCode, message: h.errorMessage ?? '' } } : {}),
      ...(h.fleetAwaySince ? { fleetAwaySince: Number(h.fleetAwaySince) } : {}),
    };
  }

  async status(id: string): Promise<CrawlStatus | undefined> {
    return ((await this.redis.hget(crawlKeys(id).meta, 'status')) ?? undefined) as CrawlStatus | undefined;
  }

  /** Crawls still running (the workers pick among them). */
  async active(): Promise<string[]> {
    return this.redis.smembers(ACTIVE_CRAWLS_KEY);
  }

  /** Crawls still running, by the key that started them (the workers take turns between keys). */
  async activeByOwner(): Promise<ActiveCrawls> {
    const [ids, owners] = await Promise.all([
      this.redis.smembers(ACTIVE_CRAWLS_KEY),
      this.redis.hgetall(ACTIVE_CRAWL_OWNERS_KEY),
    ]);
    const byOwner: ActiveCrawls = new Map();
    for (const id of ids) {
      const owner = owners[id] ?? NO_OWNER;
      const list = byOwner.get(owner);
      if (list) list.push(id);
      else byOwner.set(owner, [id]);
    }
    return byOwner;
  }

  /** The ids of `owner`'s running crawls (in no order). */
  async activeOf(owner: string | undefined): Promise<string[]> {
    return this.redis.smembers(ownerActiveCrawlsKey(owner || NO_OWNER));
  }

  /** How many crawls `owner` has running. */
  async activeCount(owner: string | undefined): Promise<number> {
    return this.redis.scard(ownerActiveCrawlsKey(owner || NO_OWNER));
  }

  async deactivate(id: string): Promise<void> {
    const owner = (await this.redis.hget(ACTIVE_CRAWL_OWNERS_KEY, id)) ?? NO_OWNER;
    await this.redis.eval(DEACTIVATE, 3, ACTIVE_CRAWLS_KEY, ACTIVE_CRAWL_OWNERS_KEY, ownerActiveCrawlsKey(owner), id);
  }

  /** Admits page URLs (already normalised and in scope) at `depth`, up to the crawl's limit. */
  async admit(id: string, limit: number, urls: readonly string[], depth: number): Promise<number> {
    if (urls.length === 0) return 0;
    const argv: (string | number)[] = [limit];
    for (const u of urls) argv.push(u, JSON.stringify({ k: 'page', u, d: depth } satisfies FrontierItem));
    return Number(await this.eval(ADMIT, id, argv));
  }

  /** The next item to work on, or why there is none. */
  async lease(id: string, leaseMs: number): Promise<Lease | 'idle' | 'busy' | 'ended'> {
    const r = (await this.eval(LEASE, id, [this.now(), leaseMs, randomUUID()])) as (string | number)[];
    if (r[0] === 'ended') return 'ended';
    if (r[0] === 'idle') return Number(r[1]) > 0 ? 'busy' : 'idle';
    const member = String(r[1]);
    return { member, item: JSON.parse(member.slice(member.indexOf(' ') + 1)) as FrontierItem, tries: Number(r[2]) };
  }

  async renew(id: string, lease: Lease, leaseMs: number): Promise<boolean> {
    return Number(await this.eval(RENEW, id, [lease.member, this.now() + leaseMs])) > 0;
  }

  /** Settles a lease; 'ended' when this settle ended the crawl. */
  async settle(
    id: string,
    lease: Lease,
    outcome: 'document' | 'none' | 'error' | 'dropped',
    documentKey = '',
    notes: SettleNotes = {},
  ): Promise<'ok' | 'lost' | 'ended'> {
    const now = this.now();
    const error = notes.error ? JSON.stringify({ ...notes.error, at: now } satisfies CrawlErrorEntry) : '';
    const r = await this.eval(SETTLE, id, [
      lease.member,
      outcome,
      documentKey,
      now,
      this.options.retentionSec,
      CRAWL_ERRORS_KEPT,
      error,
      ...(notes.blocked ?? []).slice(0, CRAWL_ERRORS_KEPT),
    ]);
    return String(r) as 'ok' | 'lost' | 'ended';
  }

  /** The pages that ended in an error (in the order they ended) and the URLs robots.txt kept the crawl from (sorted). */
  async errors(id: string): Promise<{ errors: CrawlErrorEntry[]; robotsBlocked: string[] }> {
    const k = crawlKeys(id);
    const [errors, blocked] = await Promise.all([this.redis.lrange(k.errors, 0, -1), this.redis.smembers(k.blocked)]);
    return { errors: errors.map((e) => JSON.parse(e) as CrawlErrorEntry), robotsBlocked: blocked.sort() };
  }

  /**
   * Puts a lease's item back: at the front with its try not counted (an outage: not the page's fault), or at the back
   * with its try counted (a retryable failure, a 429).
   */
  async requeue(id: string, lease: Lease, how: 'outage' | 'retry'): Promise<void> {
    const outage = how === 'outage';
    await this.eval(REQUEUE, id, [lease.member, outage ? 'LPUSH' : 'RPUSH', this.options.retentionSec, outage ? 1 : 0]);
  }

  /** Ends a scraping crawl (cancelled, or failed with an error); false when it had already ended. */
  async end(id: string, status: 'cancelled' | 'failed', error?: { code: string; message: string }): Promise<boolean> {
    const r = await this.eval(END, id, [
      status,
      this.now(),
      error?.code ?? '',
      error?.message ?? '',
      this.options.retentionSec,
    ]);
    return Number(r) === 1;
  }

  async claimDocument(id: string, documentKey: string, pageUrl: string): Promise<'new' | 'stored' | 'duplicate'> {
    return String(await this.eval(CLAIM_DOCUMENT, id, [documentKey, pageUrl])) as 'new' | 'stored' | 'duplicate';
  }

  /** Marks when the crawl's fleet was first found away (kept until it serves again); answers that time. */
  async fleetAway(id: string): Promise<number> {
    const key = crawlKeys(id).meta;
    await this.redis.hsetnx(key, 'fleetAwaySince', this.now());
    return Number(await this.redis.hget(key, 'fleetAwaySince'));
  }

  async fleetBack(id: string): Promise<void> {
    await this.redis.hdel(crawlKeys(id).meta, 'fleetAwaySince');
  }

  /** robots.txt of a host as a replica read it for this crawl (shared so it is fetched once per crawl). */
  async robots(id: string, host: string): Promise<string | undefined> {
    return (await this.redis.hget(crawlKeys(id).robots, host)) ?? undefined;
  }

  async saveRobots(id: string, host: string, record: string): Promise<void> {
    // Only while the crawl runs: an ended crawl's keys are gone and must stay gone.
    if ((await this.status(id)) === 'scraping') await this.redis.hset(crawlKeys(id).robots, host, record);
  }

  private eval(script: string, id: string, argv: (string | number)[]): Promise<unknown> {
    const keys = ITEM_KEYS(crawlKeys(id));
    return this.redis.eval(script, keys.length, ...keys, ...argv);
  }
}
