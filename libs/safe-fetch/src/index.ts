export * from './lib/address.policy.js';
export * from './lib/check-url.guard.js';
export * from './lib/guarded-lookup.resolver.js';
export * from './lib/safe-fetch.client.js';
export * from './lib/upstream-error.mapper.js';
export * from './lib/guard-proxy.server.js';
export * from './lib/decode-body.util.js';
export * from './lib/proxy-rotation.policy.js';
