export * from './lib/telemetry.env.js';
export * from './lib/start-telemetry.js';
export * from './lib/trace-context.js';
export * from './lib/logger.factory.js';
export * from './lib/nest-logger.adapter.js';
export * from './lib/trawl-metrics.js';
export * from './lib/ops-server.js';
