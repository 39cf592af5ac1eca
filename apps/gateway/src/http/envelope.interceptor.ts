import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { SUCCESS_MESSAGE, type Envelope } from '@trawl/contracts';
import type { FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';

/** Wraps every successful result in the spec's envelope: code 0, errorCode 200, message `success`. */
@Injectable()
export class EnvelopeInterceptor<T> implements NestInterceptor<T, Envelope<T>> {
  intercept(context: ExecutionContext, next: CallHandler<T>): Observable<Envelope<T>> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return next.handle().pipe(
      map((data) => ({
        requestId: String(request.id),
        code: 0,
        errorCode: 200,
        message: SUCCESS_MESSAGE,
        timestamp: Date.now(),
        data,
      })),
    );
  }
}
