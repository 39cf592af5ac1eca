export * from './lib/load-env.js';
export * from './lib/base.env.js';
export * from './lib/gateway.env.js';
