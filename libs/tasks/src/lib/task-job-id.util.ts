import { randomUUID } from 'node:crypto';
import { JOB_ID_PATTERN, QUEUES, type QueueName } from '@trawl/contracts';

/**
 * Job ids are ours, not BullMQ's counters: `<queue key>_<uuid>` (children add `_<index>`). Each queue counts on its
 * own, so BullMQ ids collide across queues; ours are unique and name their queue, so a lookup is one read.
 */
const KEY_OF_QUEUE = Object.fromEntries(Object.entries(QUEUES).map(([key, name]) => [name, key])) as Record<
  QueueName,
  string
>;
const QUEUE_OF_KEY = QUEUES as Record<string, QueueName>;

export function newJobId(queue: QueueName): string {
  return `${KEY_OF_QUEUE[queue]}_${randomUUID()}`;
}

/** Id of the `index`th child of a batch parent. */
export function childJobId(queue: QueueName, parentId: string, index: number): string {
  return `${KEY_OF_QUEUE[queue]}_${parentId.slice(parentId.indexOf('_') + 1)}_${index}`;
}

/** The queue a job id belongs to, or undefined for an id we did not make. */
export function queueOfJobId(id: string): QueueName | undefined {
  if (!JOB_ID_PATTERN.test(id)) return undefined;
  const key = id.slice(0, id.indexOf('_'));
  return Object.hasOwn(QUEUE_OF_KEY, key) ? QUEUE_OF_KEY[key] : undefined;
}

/** The child index of a child id, from its job key (`bull:<queue>:<id>`) or id. */
export function childIndexOf(jobKeyOrId: string): number {
  const id = jobKeyOrId.slice(jobKeyOrId.lastIndexOf(':') + 1);
  return Number(id.slice(id.lastIndexOf('_') + 1));
}
