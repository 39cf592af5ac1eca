export * from './lib/telemetry.env.js';
export * from './lib/telemetry.bootstrap.js';
export * from './lib/trace-context.util.js';
export * from './lib/logger.factory.js';
export * from './lib/nest-logger.adapter.js';
export * from './lib/trawl-metrics.service.js';
export * from './lib/ops.server.js';
export * from './lib/url-secrets.util.js';
