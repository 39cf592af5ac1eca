import { GatewayEnv, loadEnv } from '@trawl/config';
import { runService } from '@trawl/service-runtime';
import type { Telemetry } from '@trawl/telemetry';
import { createGatewayApp } from './gateway-app.factory.js';

/**
 * Starts the gateway on the service runtime: validated env, JSON logs, metrics, the HTTP listener (which serves the
 * API and its own `/health/*` and `/metrics`, so no ops server); on SIGTERM the app closes (in-flight requests
 * finish, NATS drains).
 */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(GatewayEnv);
  await runService({
    service: 'gateway',
    env,
    telemetry,
    start: async ({ nestLogger, metrics }) => {
      const app = await createGatewayApp(env, { logger: nestLogger, metrics });
      await app.listen({ port: env.PORT, host: env.HOST });
      return {
        stop: () => app.close(),
        started: { message: 'gateway listening', fields: { port: env.PORT } },
      };
    },
  });
}
