export * from './lib/nest-log-levels.js';
export * from './lib/run-service.js';
export * from './lib/run-nats-service.js';
