import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';

/**
 * Starts a Nest NATS microservice and waits until the NATS server has registered its subscriptions (one flush round
 * trip). `app.listen()` alone resolves once the subscriptions are written to the socket, so a request sent right
 * after on another connection can still meet "no responders"; after this, the service is really listening, and a
 * readiness probe that follows says so truthfully.
 */
export async function listenOnNats(app: INestMicroservice): Promise<void> {
  await app.listen();
  await app.unwrap<NatsConnection>().flush();
}
