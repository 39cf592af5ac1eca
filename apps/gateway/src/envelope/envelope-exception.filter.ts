import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorEnvelope } from './error-envelope.mapper.js';

/** Answers every error raised in a route, guard, pipe or interceptor with the failure envelope. */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { status, body } = toErrorEnvelope(exception, String(request.id));
    if (status >= 500 && body.data.error === 'INTERNAL') {
      this.logger.error(
        `${request.method} ${request.url} [${request.id}]: ${exception instanceof Error ? exception.stack : String(exception)}`,
      );
    }
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}
