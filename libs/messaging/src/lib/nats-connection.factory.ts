import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { inboxPrefixOf } from '@trawl/contracts';

/** User and password of a service's NATS user; empty when the server needs none. */
export interface NatsAuth {
  user?: string;
  pass?: string;
}

/** The NatsAuth of an env that has NATS_USER/NATS_PASSWORD (see BaseEnv); `{}` when NATS_USER is empty. */
export function natsAuth(env: { NATS_USER?: string; NATS_PASSWORD?: string }): NatsAuth {
  return env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASSWORD ?? '' } : {};
}

/**
 * Connects to NATS with reconnects forever (as `auth.user`, with that user's inbox prefix, `inboxPrefixOf`) (the service stays up while NATS restarts). `noAsyncTraces`: nats.js
 * otherwise builds two Error objects (stack captures) per request only to decorate a failure's stack; failures keep
 * their types (RequestError, TimeoutError, NoRespondersError) without them.
 */
export function connectNats(servers: string[], name: string, auth: NatsAuth = {}): Promise<NatsConnection> {
  return connect({
    servers,
    name,
    ...auth,
    // A user's replies (requests and JetStream alike) come on its own inboxes, the only ones it may read.
    ...(auth.user ? { inboxPrefix: inboxPrefixOf(auth.user) } : {}),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  });
}
