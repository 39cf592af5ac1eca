export * from './lib/address-policy.js';
export * from './lib/check-url.js';
export * from './lib/guarded-lookup.js';
export * from './lib/safe-fetch.js';
export * from './lib/upstream-error.js';
export * from './lib/guard-proxy.js';
export * from './lib/decode-body.js';
export * from './lib/proxy-rotation.js';
