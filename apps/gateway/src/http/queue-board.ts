import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BoardAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { QUEUES } from '@trawl/contracts';
import { createRedisClient, type RedisTopology } from '@trawl/redis';
import { queuePrefix } from '@trawl/tasks';
import { Queue } from 'bullmq';
import { adminKeyHook } from './admin-key.hook.js';
import { QUEUE_BOARD_PATH } from './queue-board.constants.js';

export interface QueueBoardOptions {
  /** The task-service's Redis (the gateway's own topology variables). */
  topology: RedisTopology;
  adminKey: string;
  /** Bull Board's read-only mode on every queue: no retry, remove, promote, pause or clean (BULL_BOARD_READ_ONLY). */
  readOnly: boolean;
}

/**
 * Mounts Bull Board (the queue dashboard) at /admin/queues, listing every queue in QUEUES, behind the admin key
 * (adminKeyHook), read-only unless `readOnly` is false. It has its own Redis connection, closed with the app. Load this file lazily (`await import`):
 * Bull Board pulls in @fastify/static, which only the gateway process needs when the dashboard is on.
 */
export async function mountQueueBoard(app: NestFastifyApplication, options: QueueBoardOptions): Promise<void> {
  const connection = createRedisClient(options.topology, { name: 'trawl-gateway-board', role: 'queue' });
  const queues = Object.values(QUEUES).map((name) => new Queue(name, { connection, prefix: queuePrefix(name) }));
  const board = new BoardAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: options.readOnly })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Trawl queues' } },
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(
    async (scope) => {
      scope.addHook('onRequest', adminKeyHook(options.adminKey));
      await scope.register(board.registerPlugin());
    },
    { prefix: QUEUE_BOARD_PATH },
  );
  fastify.addHook('onClose', async () => {
    await Promise.all(queues.map((q) => q.close()));
    await connection.quit().catch(() => connection.disconnect());
  });
}
