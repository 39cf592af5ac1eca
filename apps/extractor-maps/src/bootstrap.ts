import { loadEnv, ExtractorMapsEnv } from '@trawl/config';
import { QUEUE_GROUPS } from '@trawl/contracts';
import { runNatsService } from '@trawl/service-runtime';
import { TrawlMetrics, type Telemetry } from '@trawl/telemetry';
import { guardedFetch } from '@trawl/upstream';
import { AppModule } from './app.module.js';

/** Starts extractor-maps: its subjects served in its NATS queue group, the ops server, shutdown on SIGTERM. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(ExtractorMapsEnv);
  // One registry for the ops server's /metrics and the parse-drift counters the upstream fetcher feeds.
  const metrics = new TrawlMetrics({ service: 'extractor-maps' });
  await runNatsService({
    service: 'extractor-maps',
    queue: QUEUE_GROUPS.extractorMaps,
    env,
    telemetry,
    metrics,
    module: AppModule.forRoot(env, guardedFetch(env.SSRF_ALLOW_HOSTS), metrics),
  });
}
