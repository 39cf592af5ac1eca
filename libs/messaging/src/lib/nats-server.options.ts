import type { MicroserviceOptions } from '@nestjs/microservices';
import { DrainingNatsServer } from './draining-nats.server.js';
import type { NatsAuth } from './nats-connection.factory.js';

export interface NatsServerOptions {
  /** Connection name shown by NATS monitoring; defaults to the queue group. */
  name?: string;
  /**
   * On shutdown: stop taking requests, then wait up to this long for the ones being handled to reply (default 25 s:
   * a request's default deadline, within Kubernetes' 30 s termination grace). An idle service closes at once.
   */
  gracePeriodMs?: number;
  /** The service's NATS user (`natsAuth(env)`). */
  auth?: NatsAuth;
  /**
   * Most requests this replica handles at once (NATS_MAX_IN_FLIGHT); past it a request is answered
   * SERVICE_UNAVAILABLE at once (REPLICA_BUSY_HEADER) and MessagingClient sends it again. 0 or unset: no cap.
   */
  maxInFlight?: number;
}

/**
 * Options of a Nest NATS microservice that serves its subjects in `queue` (one replica per message), with a shutdown
 * that drains in-flight requests (`DrainingNatsServer`).
 */
export function natsServerOptions(
  servers: string[],
  queue: string,
  options: NatsServerOptions = {},
): MicroserviceOptions {
  return {
    strategy: new DrainingNatsServer(
      { servers, queue, name: options.name ?? queue, maxReconnectAttempts: -1, ...options.auth },
      options.gracePeriodMs ?? 25_000,
      options.maxInFlight ?? 0,
    ),
  };
}
