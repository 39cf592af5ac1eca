import { csv, loadEnv, ExtractorMapsEnv } from '@trawl/config';
import { QUEUE_GROUPS } from '@trawl/contracts';
import { runNatsService } from '@trawl/messaging';
import type { Telemetry } from '@trawl/telemetry';
import { guardedFetch } from '@trawl/upstream';
import { AppModule } from './app.module.js';

/** Starts extractor-maps: its subjects served in its NATS queue group, the ops server, shutdown on SIGTERM. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(ExtractorMapsEnv);
  await runNatsService({
    service: 'extractor-maps',
    queue: QUEUE_GROUPS.extractorMaps,
    env,
    telemetry,
    module: AppModule.forRoot(env, guardedFetch(csv(env.SSRF_ALLOW_HOSTS))),
  });
}
