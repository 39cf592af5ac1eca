import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';

/** Connects to NATS with reconnects forever (the service stays up while NATS restarts). */
export function connectNats(servers: string[], name: string): Promise<NatsConnection> {
  return connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: true });
}
