import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { TASK_SERVICE_DEFAULT_REDIS_URL, type TaskServiceEnv } from '@trawl/config';
import type { NatsConnection } from '@nats-io/nats-core';
import { MessagingModule, NATS_CONNECTION, NATS_TRACING, natsAuth } from '@trawl/messaging';
import { redisTopologyFromEnv } from '@trawl/redis';
import { ReplicaAcks, TaskCanceller, TaskQueues, TaskReader, TaskSubmitter } from '@trawl/tasks';
import type { TrawlMetrics } from '@trawl/telemetry';
import { WebhookUrlGuard } from '@trawl/webhooks';
import { TaskRuntimeService } from './task-runtime.service.js';
import { TASK_METRICS, TASK_SERVICE_ENV } from './task-service.tokens.js';
import { TasksController } from './tasks.controller.js';

/** task-service: batch submission and lookup over NATS, BullMQ workers, outcome publishing. */
@Module({})
export class AppModule {
  static forRoot(env: TaskServiceEnv, metrics: TrawlMetrics | null = null): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          caller: 'task-service',
          name: `task-service-${env.INSTANCE_ID}`,
          auth: natsAuth(env),
          // Latency of the requests the workers make to the extractors, by subject and outcome.
          ...(metrics ? { observe: metrics.nats.observer } : {}),
        }),
      ],
      controllers: [TasksController],
      providers: [
        // Every NATS handler continues the caller's trace (a SERVER span named after the subject).
        NATS_TRACING,
        { provide: TASK_SERVICE_ENV, useValue: env },
        { provide: TASK_METRICS, useValue: metrics },
        {
          provide: TaskQueues,
          useFactory: () => {
            const topology = redisTopologyFromEnv(env, { defaultUrl: TASK_SERVICE_DEFAULT_REDIS_URL });
            if (!topology) throw new Error('task-service needs Redis');
            return new TaskQueues({ topology });
          },
        },
        {
          // Accepted means replicated (docs/decisions/0015): a batch answers once its jobs are on the replicas.
          provide: ReplicaAcks,
          useFactory: (queues: TaskQueues) =>
            new ReplicaAcks((name) => queues.connect(name, 'command'), {
              timeoutMs: env.REDIS_REPLICAS_ACK_TIMEOUT_MS,
              expectReplicas: queues.topology.kind === 'sentinel',
              ...(env.REDIS_MIN_REPLICAS_ACK !== undefined ? { minReplicas: env.REDIS_MIN_REPLICAS_ACK } : {}),
            }),
          inject: [TaskQueues],
        },
        { provide: WebhookUrlGuard, useFactory: () => new WebhookUrlGuard(env.SSRF_ALLOW_HOSTS) },
        {
          provide: TaskSubmitter,
          useFactory: (queues: TaskQueues, guard: WebhookUrlGuard, nc: NatsConnection, acks: ReplicaAcks) => {
            const logger = new Logger('TaskSubmitter');
            return new TaskSubmitter(
              queues,
              (url) => guard.check(url),
              () => nc.info?.max_payload ?? 1024 * 1024,
              {
                maxOutstandingPerKey: env.TASK_MAX_OUTSTANDING_PER_KEY,
                acks,
                onError: (message, e) => logger.error(`${message}: ${e instanceof Error ? e.message : String(e)}`),
              },
            );
          },
          inject: [TaskQueues, WebhookUrlGuard, NATS_CONNECTION, ReplicaAcks],
        },
        { provide: TaskReader, useFactory: (queues: TaskQueues) => new TaskReader(queues), inject: [TaskQueues] },
        { provide: TaskCanceller, useFactory: (queues: TaskQueues) => new TaskCanceller(queues), inject: [TaskQueues] },
        TaskRuntimeService,
      ],
    };
  }
}
