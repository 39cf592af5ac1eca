import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { createTaskServiceApp } from './task-service-app.factory.js';

async function main(): Promise<void> {
  const env = loadEnv(TaskServiceEnv);
  const app = await createTaskServiceApp(env);
  await app.listen();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
