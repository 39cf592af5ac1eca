import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';

/**
 * Connects to NATS with reconnects forever (the service stays up while NATS restarts). `noAsyncTraces`: nats.js
 * otherwise builds two Error objects (stack captures) per request only to decorate a failure's stack; failures keep
 * their types (RequestError, TimeoutError, NoRespondersError) without them.
 */
export function connectNats(servers: string[], name: string): Promise<NatsConnection> {
  return connect({
    servers,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  });
}
