import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
  type Provider,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { NatsContext } from '@nestjs/microservices';
import { SpanKind, startSpan, tracingActive, type TraceCarrier } from '@trawl/telemetry';
import { Observable } from 'rxjs';

/**
 * Continues the caller's trace in every NATS message handler: the handler runs inside a SERVER span named after the
 * subject, whose parent is the W3C trace context in the message's headers (put there by MessagingClient). The span
 * ends when the handler's reply (or error) is out. With tracing off the handler is called as it is.
 */
@Injectable()
export class NatsTraceInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!tracingActive() || context.getType() !== 'rpc') return next.handle();
    const rpc: unknown = context.switchToRpc().getContext();
    if (!(rpc instanceof NatsContext)) return next.handle();
    const subject = rpc.getSubject();
    const headers = rpc.getHeaders() as TraceCarrier | undefined;
    return new Observable((subscriber) => {
      const span = startSpan(subject, {
        kind: SpanKind.SERVER,
        ...(headers ? { parent: headers } : {}),
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': subject,
          'messaging.operation.type': 'process',
        },
      });
      // Nest binds the handler's async scope when `handle()` is called, so it is called inside the span.
      const subscription = span.run(() =>
        next.handle().subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            span.end(error);
            subscriber.error(error);
          },
          complete: () => {
            span.end();
            subscriber.complete();
          },
        }),
      );
      return () => {
        subscription.unsubscribe();
        span.end();
      };
    });
  }
}

/**
 * The interceptor for every handler of an app: put it in the app module's `providers`, once per microservice.
 */
export const NATS_TRACING: Provider = { provide: APP_INTERCEPTOR, useClass: NatsTraceInterceptor };
