import { randomUUID } from 'node:crypto';
import { RequestMethod, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { GatewayEnv } from '@trawl/config';
import { TrawlError } from '@trawl/contracts';
import { TrawlMetrics } from '@trawl/telemetry';
import { AppModule } from './app.module.js';
import { clientErrorHandler } from './envelope/client-error.handler.js';
import { toErrorAnswer } from './compat/compat-error.mapper.js';
import { COMPAT_ROOT_PATHS } from './compat/compat-peer.policy.js';
import { useJsonBodyParser } from './validation/json-body.parser.js';
import { RouteMethods } from './validation/route-methods.store.js';
import { securityHeaders } from './security/security-headers.builder.js';
import { API_PREFIX, buildOpenApiDocument } from './openapi/openapi-document.builder.js';

export { API_PREFIX };

/** Longest path parameter the router takes (a `jobId` may be 200 characters); longer is 414 URI_TOO_LONG. */
export const MAX_PARAM_LENGTH = 256;

/**
 * Builds the gateway: Fastify with a body limit and UUID request ids (echoed in `x-request-id`), every route under
 * /api/openapi/v1, the OpenAPI document at /api/openapi/v1/openapi.json and Swagger UI at /api/openapi/v1/docs.
 * Errors Fastify raises before a route runs get the envelope too: bad or too deeply nested JSON (400), oversize body
 * (413), a path parameter over MAX_PARAM_LENGTH (414), a content type other than JSON (415), headers over Node's
 * limit (431, from the HTTP parser), a bad URL (400), an unknown path (404) or a known path with another method (405).
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
  // Security headers (helmet's, computed once): nosniff, X-Frame-Options DENY, Referrer-Policy no-referrer, HSTS, a
  // same-origin CSP. Hooks are callback-style: an async hook costs a promise per request.
  const security = securityHeaders({ frameguard: { action: 'deny' } });
  const adapter = new FastifyAdapter({
    bodyLimit: env.BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The router's own refusals (bad percent-encoding, over-long parameter) run no hook: headers and envelope here.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const { status, body } = toErrorAnswer(request.url, error, String(request.id));
      void reply.headers(security).header('x-request-id', request.id).status(status).send(body);
    },
    clientErrorHandler,
  });
  const fastify = adapter.getInstance();
  const routes = new RouteMethods();
  fastify.addHook('onRoute', (route) => routes.add(route.url, route.method));
  useJsonBodyParser(fastify, { bodyLimit: env.BODY_LIMIT_BYTES });
  const metrics = options.metrics ?? new TrawlMetrics({ service: 'gateway' });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(env, metrics), adapter, {
    logger: options.logger,
    bufferLogs: false,
    // The JSON parser above is the only one (no urlencoded, no text): Nest must not add its own.
    bodyParser: false,
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers(security).header('x-request-id', request.id);
    // Unmatched by the router: a path that exists for other methods is 405 with Allow, not 404.
    if (request.routeOptions.url === undefined) {
      const allowed = routes.allowed(request.url.split('?', 1)[0] ?? '');
      if (allowed.length > 0) {
        const { status, body } = toErrorAnswer(
          request.url,
          new TrawlError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed.join(', ')}`),
          String(request.id),
        );
        void reply.header('allow', allowed.join(', ')).status(status).send(body);
        return;
      }
    }
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
    const { status, body } = toErrorAnswer(request.url, error, String(request.id));
    void reply.status(status).send(body);
  });
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
      { path: 'metrics', method: RequestMethod.GET },
      // The peers' APIs at the root, where their clients look (ADR 0024): Firecrawl's, SerpAPI's, MCP.
      ...COMPAT_ROOT_PATHS.map((path) => ({ path, method: RequestMethod.ALL })),
    ],
  });
  const origins = env.CORS_ORIGINS;
  if (origins.length > 0) app.enableCors({ origin: origins });

  // The same document as openapi.json (`npm run openapi` writes it through openapi.cli.ts; a test keeps the two equal).
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    swaggerUiEnabled: options.swaggerUi ?? true,
  });
  return app;
}
