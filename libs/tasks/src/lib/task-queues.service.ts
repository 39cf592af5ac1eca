import { FlowProducer, Job, Queue, type IRedisTransaction, type JobsOptions } from 'bullmq';
import { QUEUES, type QueueName } from '@trawl/contracts';
import {
  createRedisClient,
  type RedisClient,
  type RedisLogger,
  type RedisRole,
  type RedisTopology,
} from '@trawl/redis';
import { defineBatchedScripts, jobReplies, queueInserts, recordInserts } from './task-insert-batches.builder.js';
import { queueOfJobId } from './task-job-id.util.js';
import type { TaskJobData } from './task-job-data.types.js';
import { queuePrefix } from './task-redis-keys.constants.js';
import { restoreResult } from './task-results.store.js';

export interface TaskQueuesOptions {
  /** Where Redis is (`redisTopologyFromEnv`): standalone, Sentinel or Cluster. */
  topology: RedisTopology;
  /** Where the connections report trouble (default: JSON lines on stderr). */
  logger?: RedisLogger;
}

/** Jobs per script call of a batched insert (`addAllOrNothing`): a call runs about 15 ms in Redis. */
const INSERT_BATCH = 500;

/** Promotions sent per MULTI when held jobs are released. */
const RELEASE_CHUNK = 5000;

/**
 * Every BullMQ queue of Trawl and the flow producer of batches, on one Redis connection (role `queue`). Each queue has
 * the prefix of its hash tag (`queuePrefix`), so it lives in one Redis Cluster slot.
 */
export class TaskQueues {
  readonly connection: RedisClient;
  readonly flows: FlowProducer;
  private readonly byName: Map<QueueName, Queue>;

  constructor(readonly options: TaskQueuesOptions) {
    this.connection = this.connect('trawl-task-queues', 'queue');
    const connection = this.connection;
    this.byName = new Map(
      Object.values(QUEUES).map((name) => [name, new Queue(name, { connection, prefix: queuePrefix(name) })]),
    );
    // A flow's parent (batch) and children (maps, search) share one prefix: see QUEUE_HASH_TAGS.
    this.flows = new FlowProducer({ connection, prefix: queuePrefix(QUEUES.batch) });
    // The connection's own listener (@trawl/redis) logs an outage once; BullMQ re-emits each error on every queue,
    // where without a listener it would be printed as unhandled.
    for (const q of this.byName.values()) q.on('error', () => undefined);
    this.flows.on('error', () => undefined);
  }

  /** Where Redis is. */
  get topology(): RedisTopology {
    return this.options.topology;
  }

  /** The BullMQ prefix of a queue (its hash tag). */
  prefixOf(name: QueueName): string {
    return queuePrefix(name);
  }

  queue(name: QueueName): Queue {
    const q = this.byName.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  /**
   * Adds `jobs` to queue `name` all-or-nothing: one MULTI holding BullMQ's own insert of each job, so Redis applies
   * every insert or none. (BullMQ 6's `Queue.addBulk` sends the same inserts as a plain pipeline, which Redis may apply
   * in part; `FlowProducer.addBulk` is atomic too but measured 30 % slower on 10,000 jobs.) The inserts are batched
   * (ADR 0018): BullMQ builds each job's insert, and runs of them go as one script call that runs BullMQ's script per
   * job, `INSERT_BATCH` jobs a call, all in the one MULTI. Every job needs a `jobId`.
   * `alongside` adds commands of the caller's to the same MULTI (after the inserts), applied with them or not at all;
   * on a Redis Cluster its keys must carry the queue's hash tag (`queuePrefix(name)`), or Redis refuses with CROSSSLOT.
   */
  async addAllOrNothing<T>(
    name: QueueName,
    jobs: { name: string; data: T; opts: JobsOptions & { jobId: string } }[],
    alongside?: (multi: IRedisTransaction) => void,
    /** Held: no worker takes the jobs for this long unless `releaseHeld` releases them sooner (see ADR 0015). */
    holdMs?: number,
  ): Promise<Job<T>[]> {
    const queue = this.queue(name);
    const backend = queue.backend;
    const client = await backend.client;
    const created = jobs.map(
      (j) => new Job<T>(queue, j.name, j.data, holdMs ? { ...j.opts, delay: holdMs } : j.opts, j.opts.jobId),
    );
    // BullMQ's insert of each job, recorded: it queues its command synchronously, then awaits the (stand-in) reply.
    const recorder = recordInserts();
    await Promise.all(
      created.map((job) => backend.addJobToTransaction(recorder.transaction, job.asJSON(), job.opts.jobId ?? '')),
    );
    defineBatchedScripts(client, recorder.inserts);
    const multi = client.multi();
    const calls = queueInserts(client, multi, recorder.inserts, INSERT_BATCH);
    alongside?.(multi);
    const results = await multi.exec();
    if (!results) throw new Error(`adding ${jobs.length} jobs to ${name} was aborted`);
    for (const [i, [err, id]] of jobReplies(calls, results).entries()) {
      if (err) throw err;
      if (typeof id === 'number' && id < 0)
        throw new Error(`adding job ${created[i].opts.jobId} to ${name} failed (code ${id})`);
      created[i].id = String(id);
    }
    return created;
  }

  /**
   * Releases held jobs (added with `holdMs`, or children held by `heldJobOptions`) at once: BullMQ's promote of each,
   * in one MULTI, so they are taken as if they had been added now. A job no longer held (its hold ran out) is left as
   * it is.
   */
  async releaseHeld(name: QueueName, ids: string[]): Promise<void> {
    const queue = this.queue(name);
    const backend = queue.backend;
    const k = queue.keys;
    const keys = [k.delayed, k.wait, k.paused, k.meta, k.prioritized, k.active, k.pc, k.events, k.marker];
    for (let i = 0; i < ids.length; i += RELEASE_CHUNK) {
      const multi = (await backend.client).multi();
      for (const id of ids.slice(i, i + RELEASE_CHUNK))
        backend.execCommand(multi, 'promote', [...keys, queue.toKey(''), id]);
      for (const [err] of (await multi.exec()) ?? []) if (err) throw err;
    }
  }

  /**
   * Removes held jobs (with their children) all in one MULTI, with `alongside`'s commands. Returns the ids that could
   * not be removed because a worker holds them (their hold ran out before the removal: see ADR 0015).
   */
  async discardHeld(name: QueueName, ids: string[], alongside?: (multi: IRedisTransaction) => void): Promise<string[]> {
    const queue = this.queue(name);
    const backend = queue.backend;
    const multi = (await backend.client).multi();
    for (const id of ids)
      backend.execCommand(multi, 'removeJob', [queue.toKey(id), queue.toKey('repeat'), id, 1, queue.toKey('')]);
    alongside?.(multi);
    const results = await multi.exec();
    if (!results) throw new Error(`removing ${ids.length} held jobs of ${name} was aborted`);
    const kept: string[] = [];
    for (const [i, [err, removed]] of results.slice(0, ids.length).entries()) {
      if (err) throw err;
      if (removed === 0) kept.push(ids[i]);
    }
    return kept;
  }

  /** A key in the slot of queue `name`'s keys (so, in a Cluster, on the same master), for replica confirmations. */
  ackKey(name: QueueName): string {
    return this.queue(name).toKey('trawl-acks');
  }

  /** The job with this id (in whichever queue its id names), or undefined. */
  async getJob(id: string): Promise<Job<TaskJobData> | undefined> {
    const name = queueOfJobId(id);
    if (!name) return undefined;
    return this.readJob(name, id);
  }

  /** Job `id` of queue `name` as stored, with its result even when it was kept apart (task-results.store), or undefined. */
  async readJob(name: QueueName, id: string): Promise<Job<TaskJobData> | undefined> {
    const queue = this.queue(name);
    const job = await Job.fromId<TaskJobData>(queue, id);
    return job ? restoreResult(this.connection, queue, job) : undefined;
  }

  /** The Redis key of the hash of the job with this id, or undefined when the id names no queue. */
  jobHashKey(id: string): string | undefined {
    const name = queueOfJobId(id);
    return name ? this.queue(name).toKey(id) : undefined;
  }

  /** A new connection to this Redis (`@trawl/redis`'s factory), named `name`, for `role`. */
  connect(name: string, role: RedisRole): RedisClient {
    return createRedisClient(this.options.topology, {
      name,
      role,
      ...(this.options.logger ? { logger: this.options.logger } : {}),
    });
  }

  /** A Redis connection for workers (role `blocking`): blocking commands wait for Redis to come back, not fail. */
  workerConnection(name: string): RedisClient {
    return this.connect(name, 'blocking');
  }

  async close(): Promise<void> {
    await this.flows.close();
    await Promise.all([...this.byName.values()].map((q) => q.close()));
    this.connection.disconnect();
  }
}
