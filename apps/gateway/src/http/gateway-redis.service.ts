import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { csv, type GatewayEnv } from '@trawl/config';
import { Redis } from 'ioredis';
import { GATEWAY_ENV } from '../gateway-env.token.js';

/**
 * The gateway's one Redis connection (key store, rate and concurrency counters), or none when REDIS_URL is not set:
 * then only the API_KEYS bootstrap keys are valid and limits are counted per process. Says which at start-up.
 */
@Injectable()
export class GatewayRedisService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Keys');
  readonly client: Redis | null;

  constructor(@Inject(GATEWAY_ENV) private readonly env: GatewayEnv) {
    this.client = env.REDIS_URL
      ? new Redis(env.REDIS_URL, { maxRetriesPerRequest: 2, connectionName: 'trawl-gateway' })
      : null;
    // ioredis reconnects on its own; a failing command is handled where it is sent.
    this.client?.on('error', () => undefined);
  }

  onModuleInit(): void {
    const bootstrap = csv(this.env.API_KEYS).length;
    if (!this.client) {
      this.logger.warn(
        `REDIS_URL is not set: only the ${bootstrap} bootstrap key(s) from API_KEYS are valid, and rate and concurrency limits are counted per process`,
      );
      return;
    }
    const { host, port } = this.client.options;
    this.logger.log(`API keys from the key store on Redis ${host}:${port} (plus ${bootstrap} bootstrap key(s) from API_KEYS); limits shared by all replicas`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.client) return;
    // QUIT only on a live connection; while Redis is away it would wait for a reconnect that keeps the process alive.
    if (this.client.status === 'ready') await this.client.quit().catch(() => this.client?.disconnect());
    else this.client.disconnect();
  }
}
