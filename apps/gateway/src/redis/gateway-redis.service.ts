import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { GatewayEnv } from '@trawl/config';
import { createRedisClient, describeRedisTopology, redisTopologyFromEnv, type RedisClient } from '@trawl/redis';
import { GATEWAY_ENV } from '../gateway-env.token.js';

/**
 * The gateway's one Redis connection (key store, rate and concurrency counters), or none when no Redis topology
 * (REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES) is set:
 * then only the API_KEYS bootstrap keys are valid and limits are counted per process. Says which at start-up.
 */
@Injectable()
export class GatewayRedisService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Keys');
  readonly client: RedisClient | null;
  private readonly where: string;

  constructor(@Inject(GATEWAY_ENV) private readonly env: GatewayEnv) {
    const topology = redisTopologyFromEnv(env);
    this.where = topology ? describeRedisTopology(topology) : '';
    // The factory's client reconnects on its own and logs an outage once; a failing command is handled where sent.
    this.client = topology
      ? createRedisClient(topology, { name: 'trawl-gateway', role: 'command', logger: this.redisLogger() })
      : null;
  }

  private redisLogger() {
    return {
      warn: (fields: Record<string, unknown>, message: string) =>
        this.logger.warn(`${message} ${JSON.stringify(fields)}`),
      info: (fields: Record<string, unknown>, message: string) =>
        this.logger.log(`${message} ${JSON.stringify(fields)}`),
    };
  }

  onModuleInit(): void {
    const bootstrap = this.env.API_KEYS.length;
    if (!this.client) {
      this.logger.warn(
        `no Redis is set (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES): only the ${bootstrap} bootstrap key(s) from API_KEYS are valid, and rate and concurrency limits are counted per process`,
      );
      return;
    }
    this.logger.log(
      `API keys from the key store on Redis ${this.where} (plus ${bootstrap} bootstrap key(s) from API_KEYS); limits shared by all replicas`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.client) return;
    // QUIT only on a live connection; while Redis is away it would wait for a reconnect that keeps the process alive.
    if (this.client.status === 'ready') await this.client.quit().catch(() => this.client?.disconnect());
    else this.client.disconnect();
  }
}
