import type { NatsConnection } from '@nats-io/nats-core';

/** A NATS connection's state as readiness sees it. */
export type NatsLinkStatus = 'connected' | 'disconnected' | 'closed';

/**
 * Follows a connected NATS connection's status events and answers its state at any moment: `disconnected` from a
 * lost connection until nats.js has re-established it (it reconnects forever, see `connectNats`), `closed` once it
 * is closed or draining. For readiness: `nc.isClosed()` alone stays false all the while NATS is away.
 */
export function followNatsStatus(nc: NatsConnection): () => NatsLinkStatus {
  let status: NatsLinkStatus = 'connected';
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') status = 'disconnected';
      else if (s.type === 'reconnect') status = 'connected';
      else if (s.type === 'close') status = 'closed';
    }
  })().catch(() => undefined);
  return () => (nc.isClosed() || nc.isDraining() ? 'closed' : status);
}
