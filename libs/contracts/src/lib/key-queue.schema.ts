import * as s from './schema/json-schema.builder.js';

/**
 * Reply of `task.queue.v1`: where an API key's jobs stand in the task queues (ADR 0041). Its outstanding jobs are the
 * ones its cap counts (URL tasks, a maps or search batch's queries; not crawls, which have their own cap): queued,
 * delayed or running, until their final state.
 */
export const KEY_QUEUE_JOBS = s.named(
  'KeyQueueJobs',
  s.object({
    outstanding: s.int('Jobs of the key not yet in a final state: waiting, delayed or running.'),
    running: s.int('Of those, the jobs a worker is running now.'),
    waiting: s.int('Of those, the jobs not yet started (waiting or delayed): `outstanding - running`.'),
    max: s.int('Most jobs the key may have outstanding (its own cap, else TASK_MAX_OUTSTANDING_PER_KEY).'),
    lastSuccessAt: s.nullable(
      s.formatted(
        'date-time',
        'When the key’s most recent job completed successfully (kept 30 days); null when none has in that time.',
      ),
    ),
  }),
);
export type KeyQueueJobs = s.Infer<typeof KEY_QUEUE_JOBS>;

/** `data` of GET /usage/queue: the key's jobs in the task queues, and its requests in flight at the gateway. */
export const KEY_QUEUE_USAGE = s.named(
  'KeyQueueUsage',
  s.object({
    jobs: s.ref(KEY_QUEUE_JOBS),
    requests: s.described(
      s.object({
        inFlight: s.int('The key’s other requests in flight now, on every gateway replica (this one not counted).'),
        max: s.int('Most requests the key may have in flight at once (its `concurrency` limit).'),
      }),
      'Requests of the key the gateway is serving now: what its concurrency limit counts.',
    ),
  }),
);
export type KeyQueueUsage = s.Infer<typeof KEY_QUEUE_USAGE>;
