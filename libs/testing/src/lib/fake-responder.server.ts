import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { TrawlError } from '@trawl/contracts';

/**
 * Answers a request/reply subject on a real NATS connection in the frame format of Nest's NATS transport, standing in
 * for a service in tests of its callers. A thrown TrawlError is answered as its WireError.
 */
export function serveSubject(
  nc: NatsConnection,
  subject: string,
  handler: (data: unknown, headers: Record<string, string>) => unknown,
  queue = 'test-responders',
): Subscription {
  return nc.subscribe(subject, {
    queue,
    callback: (_err, msg) => {
      const frame = JSON.parse(new TextDecoder().decode(msg.data)) as { id: string; data: unknown };
      const headers: Record<string, string> = {};
      for (const [k] of msg.headers ?? []) headers[k] = msg.headers?.get(k) ?? '';
      Promise.resolve()
        .then(() => handler(frame.data, headers))
        .then(
          (response) => msg.respond(JSON.stringify({ id: frame.id, response, isDisposed: true })),
          (e: unknown) =>
            msg.respond(
              JSON.stringify({
                id: frame.id,
                err: e instanceof TrawlError ? e.toWire() : { code: 'INTERNAL', message: 'x', retryable: false },
                isDisposed: true,
              }),
            ),
        );
    },
  });
}
