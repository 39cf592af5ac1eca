export * from './lib/browser-headers.js';
export * from './lib/deadline.js';
export * from './lib/upstream-fetcher.js';
export * from './lib/upstream-origin.js';
export * from './lib/upstream-fetcher.factory.js';
export * from './lib/guarded-fetch.js';
export * from './lib/engine-attempts.js';
export * from './lib/upstream-page.source.js';
