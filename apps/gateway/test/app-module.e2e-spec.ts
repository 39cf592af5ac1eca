import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ApplicationConfig } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadEnv, GatewayEnv } from '@trawl/config';
import { startNats, type TestServer } from '@trawl/testing';
import { ApiKeyGuard } from '../src/auth/api-key.guard.js';
import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { AuthModule } from '../src/auth/auth.module.js';
import { NativeOperations } from '../src/compat/native-operations.service.js';
import { FirecrawlModule } from '../src/compat/firecrawl/firecrawl.module.js';
import { FirecrawlService } from '../src/compat/firecrawl/firecrawl.service.js';
import { McpController } from '../src/compat/mcp/mcp.controller.js';
import { McpModule } from '../src/compat/mcp/mcp.module.js';
import { createGatewayApp } from '../src/gateway-app.factory.js';
import { KeyLimitsGuard } from '../src/limits/key-limits.guard.js';
import { GatewayRedisModule } from '../src/redis/gateway-redis.module.js';
import { GatewayRedisService } from '../src/redis/gateway-redis.service.js';
import { HealthController } from '../src/routes/health.controller.js';
import { NativeRoutesModule } from '../src/routes/native-routes.module.js';
import { OpsModule } from '../src/routes/ops.module.js';

const KEY = 'module-spec-key';

/** The gateway composed of feature modules (issue 20): who owns what, one instance of each, guards in order. */
describe('gateway modules', () => {
  let nats: TestServer;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    nats = await startNats();
    const env = loadEnv(GatewayEnv, { NATS_URL: nats.url, API_KEYS: KEY });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    await nats?.stop();
  });

  it('runs ApiKeyGuard before KeyLimitsGuard, the only global guards', () => {
    // NestApplication keeps its ApplicationConfig private; the global guards are in it, in the order they run.
    const config = (app as unknown as { config: ApplicationConfig }).config;
    expect(config.getGlobalGuards().map((guard) => guard.constructor)).toEqual([ApiKeyGuard, KeyLimitsGuard]);
  });

  it('counts a request against its key only once the key is known (the limits see the principal)', async () => {
    const fastify = app.getHttpAdapter().getInstance();
    const anonymous = await fastify.inject({ method: 'POST', url: '/api/openapi/v1/scrape', payload: {} });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['ratelimit-limit']).toBeUndefined();
    // Authenticated, then limited, then validated: the body is refused after the key was counted.
    const keyed = await fastify.inject({
      method: 'POST',
      url: '/api/openapi/v1/scrape',
      headers: { 'x-api-key': KEY },
      payload: {},
    });
    expect(keyed.statusCode).toBe(400);
    expect(keyed.json().data.error).toBe('VALIDATION_FAILED');
    expect(keyed.headers['ratelimit-limit']).toBeDefined();
  });

  it('has each provider owned by its feature module, and one instance of each shared through exports', () => {
    const strict = { strict: true };
    expect(app.select(AuthModule).get(ApiKeysService, strict)).toBeInstanceOf(ApiKeysService);
    expect(() => app.select(NativeRoutesModule).get(ApiKeysService, strict)).toThrow();

    const native = app.select(NativeRoutesModule).get(NativeOperations, strict);
    const firecrawl = app.select(FirecrawlModule).get(FirecrawlService, strict);
    expect((firecrawl as unknown as { native: NativeOperations }).native).toBe(native);
    const mcp = app.select(McpModule).get(McpController, strict) as unknown as {
      native: NativeOperations;
      firecrawl: FirecrawlService;
    };
    expect(mcp.native).toBe(native);
    expect(mcp.firecrawl).toBe(firecrawl);

    const redis = app.select(GatewayRedisModule).get(GatewayRedisService, strict);
    const health = app.select(OpsModule).get(HealthController, strict) as unknown as { redis: GatewayRedisService };
    expect(health.redis).toBe(redis);
  });
});
