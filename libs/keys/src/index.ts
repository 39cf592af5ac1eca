export * from './lib/key-material.js';
export * from './lib/rate-limit.js';
export * from './lib/api-key.store.js';
export * from './lib/api-key.cache.js';
export * from './lib/key-invalidations.js';
export * from './lib/key-rate.limiter.js';
export * from './lib/concurrency.limiter.js';
export * from './lib/webhook-secret.js';
