import type { NatsConnection } from '@nats-io/nats-core';
import { loadEnv, WebhookDispatcherEnv } from '@trawl/config';
import { followNatsStatus, NATS_CONNECTION } from '@trawl/messaging';
import { runService } from '@trawl/service-runtime';
import type { Telemetry } from '@trawl/telemetry';
import { DispatcherService } from './dispatcher.service.js';
import { createWebhookDispatcherApp } from './webhook-dispatcher-app.factory.js';

/** Starts the webhook dispatcher (a Nest application context consuming task outcomes) on the service runtime. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(WebhookDispatcherEnv);
  await runService({
    service: 'webhook-dispatcher',
    env,
    telemetry,
    start: async ({ nestLogger, metrics }) => {
      const app = await createWebhookDispatcherApp(env, { logger: nestLogger, metrics });
      await app.init();
      const natsStatus = followNatsStatus(app.get<NatsConnection>(NATS_CONNECTION));
      const dispatcher = app.get(DispatcherService);
      return {
        // A lost consumer (its stream's node gone, being rebound) is not ready: no outcome is delivered meanwhile.
        ready: () => {
          const consumer = dispatcher.consumerState();
          return {
            ok: natsStatus() === 'connected' && consumer === 'bound',
            details: { nats: natsStatus(), consumer },
          };
        },
        stop: () => app.close(),
        started: { message: 'webhook-dispatcher consuming task outcomes' },
      };
    },
  });
}
