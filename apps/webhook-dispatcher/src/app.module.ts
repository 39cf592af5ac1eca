import { Module, type DynamicModule } from '@nestjs/common';
import type { WebhookDispatcherEnv } from '@trawl/config';
import { MessagingModule, natsAuth } from '@trawl/messaging';
import type { TrawlMetrics } from '@trawl/telemetry';
import { DispatcherService } from './dispatcher.service.js';
import { WEBHOOK_DISPATCHER_ENV, WEBHOOK_METRICS } from './webhook-dispatcher.tokens.js';

/** webhook-dispatcher: delivers task outcomes from JetStream to the callers' webhooks. */
@Module({})
export class AppModule {
  static forRoot(env: WebhookDispatcherEnv, metrics: TrawlMetrics | null = null): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          caller: 'webhook-dispatcher',
          name: `webhook-dispatcher-${env.INSTANCE_ID}`,
          auth: natsAuth(env),
        }),
      ],
      providers: [
        { provide: WEBHOOK_DISPATCHER_ENV, useValue: env },
        { provide: WEBHOOK_METRICS, useValue: metrics },
        DispatcherService,
      ],
    };
  }
}
