import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { NativeOperations } from '../compat/native-operations.service.js';
import { NATIVE_CONTROLLERS } from '../routes/native-routes.module.js';
import { renderClientTypes } from './client-types.renderer.js';
import { API_PREFIX, buildOpenApiDocument, serializeOpenApi } from './openapi-document.builder.js';

/**
 * The API's controllers with stand-in dependencies, for describing them: no NATS, no Redis, nothing listens. The
 * controllers' routes, DTOs and decorators are what the document is made of; their dependencies are never called.
 */
@Module({
  controllers: NATIVE_CONTROLLERS,
  providers: [{ provide: NativeOperations, useValue: {} }],
})
class ApiDocsModule {}

async function createDocsApp(): Promise<INestApplication> {
  const app = await NestFactory.create(ApiDocsModule, new FastifyAdapter(), { logger: false, abortOnError: false });
  app.setGlobalPrefix(API_PREFIX);
  return app;
}

/** What `npm run openapi` writes: openapi.json, and the client's types generated from it. */
export interface RenderedApiDocs {
  openApiJson: string;
  clientTypes: string;
}

/** openapi.json as committed (and the client's types): built from the controllers without a running gateway. */
export async function renderApiDocs(): Promise<RenderedApiDocs> {
  const app = await createDocsApp();
  try {
    const doc = buildOpenApiDocument(app);
    return { openApiJson: serializeOpenApi(doc), clientTypes: renderClientTypes(doc) };
  } finally {
    await app.close();
  }
}

export async function renderOpenApiJson(): Promise<string> {
  return (await renderApiDocs()).openApiJson;
}
