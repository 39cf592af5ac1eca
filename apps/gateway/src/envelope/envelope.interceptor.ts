import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SUCCESS_MESSAGE, type Envelope } from '@trawl/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';
import { RawJson } from '../validation/raw-json.serializer.js';
import { NO_ENVELOPE } from './no-envelope.decorator.js';

/**
 * Wraps every successful result in the spec's envelope: code 0, errorCode 200, message `success`. A RawJson result
 * goes into `data` as the JSON text it is: the envelope is written around it, same members in the same order. Routes
 * marked @NoEnvelope() (the peers' APIs) answer their results as they are.
 */
@Injectable()
export class EnvelopeInterceptor<T> implements NestInterceptor<T, Envelope<T> | string | T> {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler<T>): Observable<Envelope<T> | string | T> {
    if (this.reflector.getAllAndOverride<boolean>(NO_ENVELOPE, [context.getHandler(), context.getClass()])) {
      return next.handle();
    }
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    return next.handle().pipe(
      map((data) => {
        const envelope = {
          requestId: String(request.id),
          code: 0,
          errorCode: 200,
          message: SUCCESS_MESSAGE,
          timestamp: Date.now(),
        };
        if (!(data instanceof RawJson)) return { ...envelope, data };
        void http.getResponse<FastifyReply>().header('content-type', 'application/json; charset=utf-8');
        return `${JSON.stringify(envelope).slice(0, -1)},"data":${data.json}}`;
      }),
    );
  }
}
