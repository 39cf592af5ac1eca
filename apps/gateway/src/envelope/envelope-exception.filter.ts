import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorEnvelope } from './error-envelope.mapper.js';
import { toErrorAnswer } from '../compat/compat-error.mapper.js';

/**
 * Answers every error raised in a route, guard, pipe or interceptor with the failure envelope, or, on a peer's path
 * (Firecrawl, SerpAPI, MCP), in that peer's error shape. The log line names the path only: a query may hold a key.
 */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { status, body } = toErrorAnswer(request.url, exception, String(request.id));
    if (status >= 500 && isInternal(exception)) {
      this.logger.error(
        `${request.method} ${request.url.split('?', 1)[0]} [${request.id}]: ${exception instanceof Error ? exception.stack : String(exception)}`,
      );
    }
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}

/** An error no mapping knows (answered as INTERNAL): worth a log line with its stack. */
function isInternal(exception: unknown): boolean {
  return toErrorEnvelope(exception, '').body.data.error === 'INTERNAL';
}
