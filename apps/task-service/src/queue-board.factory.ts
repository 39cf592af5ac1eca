import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BoardAdapter } from '@bull-board/fastify';
import type { OpsMount } from '@trawl/telemetry';
import type { Queue } from 'bullmq';
import Fastify from 'fastify';
import { adminKeyHook } from './admin-key.hook.js';

/** Where the queue dashboard (Bull Board) is served, on the ops server's port (METRICS_PORT). */
export const QUEUE_BOARD_PATH = '/admin/queues';

export interface QueueBoardOptions {
  /** The queues to list: task-service's own (TaskQueues), so the board opens no Redis connection of its own. */
  queues: readonly Queue[];
  adminKey: string;
  /** Bull Board's read-only mode on every queue: no retry, remove, promote, pause or clean (BULL_BOARD_READ_ONLY). */
  readOnly: boolean;
}

/**
 * Bull Board (the queue dashboard) at /admin/queues, behind the admin key (adminKeyHook), read-only unless `readOnly`
 * is false, as a mount of the ops server (`startOpsServer({ mounts })`). A small Fastify instance of its own serves
 * it: its routing is handed the ops server's requests under the path. Load this file lazily (`await import`): Bull
 * Board pulls in @fastify/static, which the process needs only when the dashboard is on.
 */
export async function queueBoardMount(options: QueueBoardOptions): Promise<OpsMount> {
  const board = new BoardAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: options.queues.map((q) => new BullMQAdapter(q, { readOnlyMode: options.readOnly })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Trawl queues' } },
  });
  const fastify = Fastify();
  await fastify.register(
    async (scope) => {
      scope.addHook('onRequest', adminKeyHook(options.adminKey));
      await scope.register(board.registerPlugin());
    },
    { prefix: QUEUE_BOARD_PATH },
  );
  await fastify.ready();
  return {
    prefix: QUEUE_BOARD_PATH,
    handle: (req, res) => fastify.routing(req, res),
    close: () => fastify.close(),
  };
}
