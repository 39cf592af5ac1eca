import { randomUUID } from 'node:crypto';
import { Logger, RequestMethod, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { csv, type GatewayEnv } from '@trawl/config';
import { TrawlMetrics } from '@trawl/telemetry';
import { AppModule } from './app.module.js';
import { toErrorEnvelope } from './http/error-envelope.js';
import { QUEUE_BOARD_PATH } from './http/queue-board.constants.js';
import { securityHeaders } from './http/security-headers.js';
import { API_PREFIX, buildOpenApiDocument } from './openapi/openapi-document.js';

export { API_PREFIX };

/**
 * Builds the gateway: Fastify with a body limit and UUID request ids (echoed in `x-request-id`), every route under
 * /api/openapi/v1, the OpenAPI document at /api/openapi/v1/openapi.json and Swagger UI at /api/openapi/v1/docs.
 * Errors Fastify raises before a route runs (bad JSON, oversize body, wrong content type) get the envelope too.
 */
export interface GatewayAppOptions {
  /** `false` silences Nest's logs (tests); otherwise the given logger, or Nest's default. */
  logger?: false | LoggerService;
  /** The process's metrics; a fresh registry when not given. */
  metrics?: TrawlMetrics;
  /** Serve Swagger UI (static assets through @fastify/static). In-process tests turn it off; the JSON stays. */
  swaggerUi?: boolean;
}

export async function createGatewayApp(
  env: GatewayEnv,
  options: GatewayAppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: env.BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: true,
  });
  const metrics = options.metrics ?? new TrawlMetrics({ service: 'gateway' });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(env, metrics), adapter, {
    logger: options.logger,
    bufferLogs: false,
  });
  // Security headers (helmet's, computed once): nosniff, X-Frame-Options DENY, Referrer-Policy no-referrer, HSTS, a
  // same-origin CSP. Hooks are callback-style: an async hook costs a promise per request.
  const security = securityHeaders({ frameguard: { action: 'deny' } });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers(security).header('x-request-id', request.id);
    done();
  });
  // Request count and latency by route template (not raw URL) and status.
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.http.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });
  fastify.setErrorHandler((error, request, reply) => {
    const { status, body } = toErrorEnvelope(error, String(request.id));
    void reply.status(status).send(body);
  });
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
      { path: 'metrics', method: RequestMethod.GET },
    ],
  });
  const origins = csv(env.CORS_ORIGINS);
  if (origins.length > 0) app.enableCors({ origin: origins });
  app.enableShutdownHooks();
  if (env.ADMIN_API_KEY && env.REDIS_URL) {
    // Loaded only when on: Bull Board brings @fastify/static along.
    const { mountQueueBoard } = await import('./http/queue-board.js');
    await mountQueueBoard(app, { redisUrl: env.REDIS_URL, adminKey: env.ADMIN_API_KEY });
  } else {
    new Logger('Admin').log(`queue dashboard ${QUEUE_BOARD_PATH} is off (it needs ADMIN_API_KEY and REDIS_URL)`);
  }

  // The same document as openapi.json (tools/openapi writes it; a test keeps the two equal).
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    swaggerUiEnabled: options.swaggerUi ?? true,
  });
  return app;
}
