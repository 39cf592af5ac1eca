import { Transport, type MicroserviceOptions } from '@nestjs/microservices';

export interface NatsServerOptions {
  /** Connection name shown by NATS monitoring; defaults to the queue group. */
  name?: string;
  /** On shutdown: unsubscribe, then wait this long for in-flight handlers before closing. */
  gracePeriodMs?: number;
}

/** Options of a Nest NATS microservice that serves its subjects in `queue` (one replica per message). */
export function natsServerOptions(servers: string[], queue: string, options: NatsServerOptions = {}): MicroserviceOptions {
  return {
    transport: Transport.NATS,
    options: {
      servers,
      queue,
      name: options.name ?? queue,
      maxReconnectAttempts: -1,
      gracefulShutdown: true,
      gracePeriod: options.gracePeriodMs ?? 10_000,
    },
  } as MicroserviceOptions;
}
