import { loadEnv, GatewayEnv } from '@trawl/config';
import { createGatewayApp } from './gateway-app.factory.js';

async function main(): Promise<void> {
  const env = loadEnv(GatewayEnv);
  const app = await createGatewayApp(env);
  await app.listen({ port: env.PORT, host: env.HOST });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
