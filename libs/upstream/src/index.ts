export * from './lib/browser-headers.builder.js';
export * from './lib/deadline.policy.js';
export * from './lib/upstream-fetcher.service.js';
export * from './lib/upstream-origin.policy.js';
export * from './lib/upstream-fetcher.factory.js';
export * from './lib/guarded-fetch.factory.js';
export * from './lib/engine-attempts.policy.js';
export * from './lib/upstream-page.source.js';
