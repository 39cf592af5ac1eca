import { Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import type { ServiceName } from '@trawl/contracts';
import { MessagingClient, type RequestObserver } from './messaging.client.js';
import { connectNats, type NatsAuth } from './nats-connection.factory.js';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

export interface MessagingModuleOptions {
  servers: string[];
  name: string;
  /** Observes every request (latency metrics by subject and outcome). */
  observe?: RequestObserver;
  /** The service's NATS user (`natsAuth(env)`). */
  auth?: NatsAuth;
  /**
   * The service sending: the client refuses a subject whose row (SUBJECT_TABLE) does not list it among the callers,
   * as the deploy's NATS permissions would, but at once and naming the table.
   */
  caller?: ServiceName;
}

/** Provides the NATS connection and the typed MessagingClient; drains the connection on shutdown. */
@Module({})
export class MessagingModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  static forRoot(options: MessagingModuleOptions): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      providers: [
        { provide: NATS_CONNECTION, useFactory: () => connectNats(options.servers, options.name, options.auth) },
        {
          provide: MessagingClient,
          useFactory: (nc: NatsConnection) =>
            new MessagingClient(nc, options.observe, options.caller ? { caller: options.caller } : {}),
          inject: [NATS_CONNECTION],
        },
      ],
      exports: [NATS_CONNECTION, MessagingClient],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}
