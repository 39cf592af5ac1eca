import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { TASK_SERVICE_DEFAULT_REDIS_URL, type TaskServiceEnv } from '@trawl/config';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  CrawlDocumentsStore,
  CrawlEventsPublisher,
  CrawlService,
  CrawlStore,
  refuseDisallowed,
  SiteMapper,
} from '@trawl/crawl';
import { MessagingModule, NATS_CONNECTION, NATS_TRACING, natsAuth, streamReplicas } from '@trawl/messaging';
import { createRedisClient, redisTopologyFromEnv, type RedisClient } from '@trawl/redis';
import { parseAllowList } from '@trawl/safe-fetch';
import {
  BatchEventsPublisher,
  BatchPagesStore,
  DEFAULT_BATCH_EVENTS_OPTIONS,
  LlmTokenStore,
  ReplicaAcks,
  TaskCanceller,
  TaskQueues,
  TaskReader,
  TaskSubmitter,
} from '@trawl/tasks';
import type { TrawlMetrics } from '@trawl/telemetry';
import { WebhookUrlGuard } from '@trawl/webhooks';
import { TaskRuntimeService } from './task-runtime.service.js';
import { CrawlController } from './crawl.controller.js';
import { CrawlRuntimeService } from './crawl-runtime.service.js';
import { CRAWL_REDIS, TASK_METRICS, TASK_SERVICE_ENV } from './task-service.tokens.js';
import { TasksController } from './tasks.controller.js';
import { TokensController } from './tokens.controller.js';

/** How long a URL batch's count of finished pages lives after its last page (BatchPagesStore), ms. */
const BATCH_PAGES_TTL_MS = 7 * 24 * 60 * 60 * 1000;

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
      controllers: [TasksController, CrawlController, TokensController],
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
        // URL batches with `webhookOptions` (Firecrawl's batch webhooks, ADR 0028): their events on the outcome stream.
        {
          provide: BatchEventsPublisher,
          useFactory: (queues: TaskQueues, nc: NatsConnection) =>
            new BatchEventsPublisher(jetstream(nc), new BatchPagesStore(queues.connection, BATCH_PAGES_TTL_MS), {
              ...DEFAULT_BATCH_EVENTS_OPTIONS,
              maxPayloadBytes: () => nc.info?.max_payload ?? 1024 * 1024,
            }),
          inject: [TaskQueues, NATS_CONNECTION],
        },
        {
          provide: TaskSubmitter,
          useFactory: (
            queues: TaskQueues,
            guard: WebhookUrlGuard,
            nc: NatsConnection,
            acks: ReplicaAcks,
            batchEvents: BatchEventsPublisher,
          ) => {
            const logger = new Logger('TaskSubmitter');
            return new TaskSubmitter(
              queues,
              (url) => guard.check(url),
              () => nc.info?.max_payload ?? 1024 * 1024,
              {
                maxOutstandingPerKey: env.TASK_MAX_OUTSTANDING_PER_KEY,
                acks,
                batchEvents,
                onError: (message, e) => logger.error(`${message}: ${e instanceof Error ? e.message : String(e)}`),
              },
            );
          },
          inject: [TaskQueues, WebhookUrlGuard, NATS_CONNECTION, ReplicaAcks, BatchEventsPublisher],
        },
        { provide: TaskReader, useFactory: (queues: TaskQueues) => new TaskReader(queues), inject: [TaskQueues] },
        { provide: TaskCanceller, useFactory: (queues: TaskQueues) => new TaskCanceller(queues), inject: [TaskQueues] },
        TaskRuntimeService,
        // Crawls and maps (ADR 0026): their state in the task Redis, their documents in JetStream.
        {
          provide: CRAWL_REDIS,
          useFactory: () => {
            const topology = redisTopologyFromEnv(env, { defaultUrl: TASK_SERVICE_DEFAULT_REDIS_URL });
            if (!topology) throw new Error('task-service needs Redis');
            return createRedisClient(topology, { name: 'trawl-crawl', role: 'command' });
          },
        },
        {
          provide: CrawlStore,
          useFactory: (redis: RedisClient) =>
            new CrawlStore(redis, { retentionSec: Math.ceil(env.CRAWL_RETENTION_MS / 1000) }),
          inject: [CRAWL_REDIS],
        },
        {
          provide: CrawlDocumentsStore,
          useFactory: async (nc: NatsConnection) =>
            new CrawlDocumentsStore(jetstream(nc), await jetstreamManager(nc), {
              maxBytes: env.CRAWL_DOCUMENTS_MAX_BYTES,
              maxAgeMs: env.CRAWL_RETENTION_MS,
              maxDocumentBytes: nc.info?.max_payload ?? 1024 * 1024,
              duplicateWindowMs: Math.min(env.CRAWL_RETENTION_MS, 2 * 60 * 60 * 1000),
              replicas: streamReplicas(nc, env.NATS_STREAM_REPLICAS, env.NATS_URL).count,
            }),
          inject: [NATS_CONNECTION],
        },
        {
          // Crawl webhook events go out on the outcome stream, as task outcomes do (the dispatcher signs and retries).
          provide: CrawlEventsPublisher,
          useFactory: (nc: NatsConnection) =>
            new CrawlEventsPublisher(jetstream(nc), {
              attempts: 5,
              retryDelayMs: 200,
              timeoutMs: 5000,
              maxPayloadBytes: () => nc.info?.max_payload ?? 1024 * 1024,
            }),
          inject: [NATS_CONNECTION],
        },
        {
          provide: CrawlService,
          useFactory: (
            store: CrawlStore,
            documents: CrawlDocumentsStore,
            guard: WebhookUrlGuard,
            nc: NatsConnection,
            events: CrawlEventsPublisher,
          ) =>
            new CrawlService(store, documents, {
              // A page of documents fits a reply: three quarters of the payload limit, the rest for the frame.
              maxReplyBytes: () => Math.floor(0.75 * (nc.info?.max_payload ?? 1024 * 1024)),
              maxPageDocuments: 1000,
              checkUrl: (url) => refuseDisallowed(url, parseAllowList(env.SSRF_ALLOW_HOSTS)),
              checkWebhook: async (url) => {
                await guard.check(url);
              },
              events,
              maxActivePerKey: env.CRAWL_MAX_ACTIVE_PER_KEY,
            }),
          inject: [CrawlStore, CrawlDocumentsStore, WebhookUrlGuard, NATS_CONNECTION, CrawlEventsPublisher],
        },
        {
          provide: SiteMapper,
          useFactory: (redis: RedisClient) =>
            new SiteMapper(redis, { allow: parseAllowList(env.SSRF_ALLOW_HOSTS), robotsAgent: env.CRAWL_ROBOTS_AGENT }),
          inject: [CRAWL_REDIS],
        },
        // Language-model tokens per key and month (ADR 0040), in the task Redis beside the crawls' state.
        {
          provide: LlmTokenStore,
          useFactory: (redis: RedisClient) =>
            new LlmTokenStore(redis, { budgetPerKeyPerMonth: env.LLM_TOKENS_PER_KEY_PER_MONTH }),
          inject: [CRAWL_REDIS],
        },
        CrawlRuntimeService,
      ],
    };
  }
}
