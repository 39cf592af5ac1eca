export * from './lib/nest-log-levels.constants.js';
export * from './lib/service.runtime.js';
export * from './lib/nats-service.runtime.js';
