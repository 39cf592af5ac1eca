import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import type { WebhookDispatcherEnv } from '@trawl/config';
import { SecretCipher, webhookSecretForKey } from '@trawl/keys';
import { NATS_CONNECTION, streamReplicas } from '@trawl/messaging';
import { createRedisClient, redisTopologyFromEnv, type RedisClient } from '@trawl/redis';
import type { TrawlMetrics } from '@trawl/telemetry';
import { WebhookDispatcher, WebhookSender, WebhookUrlGuard, type DispatcherConsumerState } from '@trawl/webhooks';
import { WEBHOOK_DISPATCHER_ENV, WEBHOOK_METRICS } from './webhook-dispatcher.tokens.js';

/** Runs the webhook dispatcher for the life of the app; on shutdown finishes the deliveries in flight. */
@Injectable()
export class DispatcherService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private redis: RedisClient | null = null;
  private sender: WebhookSender | undefined;
  private dispatcher: WebhookDispatcher | undefined;

  constructor(
    @Inject(WEBHOOK_DISPATCHER_ENV) private readonly env: WebhookDispatcherEnv,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(WEBHOOK_METRICS) private readonly metrics: TrawlMetrics | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const env = this.env;
    const topology = redisTopologyFromEnv(env);
    const redis = topology ? createRedisClient(topology, { name: 'webhook-dispatcher', role: 'command' }) : null;
    this.redis = redis;
    const cipher = env.KEYS_ENCRYPTION_KEY ? new SecretCipher(env.KEYS_ENCRYPTION_KEY) : undefined;
    if (redis && !cipher) {
      this.logger.warn('KEYS_ENCRYPTION_KEY is not set: webhook secrets in the key store are read in clear only');
    }
    this.sender = new WebhookSender(
      new WebhookUrlGuard(env.SSRF_ALLOW_HOSTS),
      (apiKeyId) => webhookSecretForKey(redis, apiKeyId, env.WEBHOOK_SIGNING_SECRET, cipher),
      { timeoutMs: env.WEBHOOK_TIMEOUT_MS },
    );
    this.dispatcher = new WebhookDispatcher(this.nc, this.sender, {
      concurrency: env.WEBHOOK_CONCURRENCY,
      hosts: {
        ...(env.WEBHOOK_HOST_CONCURRENCY > 0 ? { perHost: env.WEBHOOK_HOST_CONCURRENCY } : {}),
        circuitFailures: env.WEBHOOK_CIRCUIT_FAILURES,
        circuitOpenMs: env.WEBHOOK_CIRCUIT_OPEN_MS,
      },
      maxPending: env.WEBHOOK_MAX_PENDING,
      replicas: streamReplicas(this.nc, env.NATS_STREAM_REPLICAS, env.NATS_URL),
      ackWaitMs: env.WEBHOOK_TIMEOUT_MS + 30_000,
      retry: {
        schedule: env.WEBHOOK_RETRY_SCHEDULE,
        jitter: env.WEBHOOK_RETRY_JITTER,
        maxRetryAfterMs: env.WEBHOOK_MAX_RETRY_AFTER_MS,
      },
      observe: (outcome, seconds) => {
        this.metrics?.webhook.deliveries.inc({ outcome });
        this.metrics?.webhook.duration.observe({ outcome }, seconds);
      },
      log: (level, message, e) => {
        const text = e === undefined ? message : `${message}: ${e instanceof Error ? e.message : String(e)}`;
        if (level === 'error') this.logger.error(text);
        else if (level === 'warn') this.logger.warn(text);
        else this.logger.log(text);
      },
    });
    await this.dispatcher.start();
  }

  /** Whether the dispatcher takes outcomes from its consumer (`bound`) or has lost it and is rebinding (`lost`). */
  consumerState(): DispatcherConsumerState | 'starting' {
    return this.dispatcher?.state() ?? 'starting';
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.dispatcher?.close();
    await this.sender?.close();
    this.redis?.disconnect();
  }
}
