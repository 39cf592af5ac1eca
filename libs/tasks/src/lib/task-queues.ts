import { FlowProducer, Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUES, type QueueName } from '@trawl/contracts';
import { queueOfJobId } from './task-job-id.js';
import type { TaskJobData } from './task-job-data.js';

export interface TaskQueuesOptions {
  redisUrl: string;
  /** BullMQ key prefix; `bull` unless told. */
  prefix?: string;
}

/** Every BullMQ queue of Trawl and the flow producer of batches, on one Redis connection. */
export class TaskQueues {
  readonly connection: Redis;
  readonly flows: FlowProducer;
  readonly prefix: string;
  private readonly byName: Map<QueueName, Queue>;

  constructor(readonly options: TaskQueuesOptions) {
    this.prefix = options.prefix ?? 'bull';
    this.connection = new Redis(options.redisUrl, { maxRetriesPerRequest: 3, connectionName: 'trawl-task-queues' });
    const shared = { connection: this.connection, prefix: this.prefix };
    this.byName = new Map(Object.values(QUEUES).map((name) => [name, new Queue(name, shared)]));
    this.flows = new FlowProducer(shared);
  }

  queue(name: QueueName): Queue {
    const q = this.byName.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  /** The job with this id (in whichever queue its id names), or undefined. */
  async getJob(id: string): Promise<Job<TaskJobData> | undefined> {
    const name = queueOfJobId(id);
    if (!name) return undefined;
    return (await Job.fromId<TaskJobData>(this.queue(name), id)) ?? undefined;
  }

  /** A Redis connection for workers: blocking commands wait for Redis to come back instead of failing. */
  workerConnection(name: string): Redis {
    return new Redis(this.options.redisUrl, { maxRetriesPerRequest: null, connectionName: name });
  }

  async close(): Promise<void> {
    await this.flows.close();
    await Promise.all([...this.byName.values()].map((q) => q.close()));
    this.connection.disconnect();
  }
}
