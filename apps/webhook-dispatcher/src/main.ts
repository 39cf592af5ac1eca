import { loadEnv, WebhookDispatcherEnv } from '@trawl/config';
import { createWebhookDispatcherApp } from './webhook-dispatcher-app.factory.js';

async function main(): Promise<void> {
  const env = loadEnv(WebhookDispatcherEnv);
  const app = await createWebhookDispatcherApp(env);
  await app.init();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
