export * from './lib/load-env.js';
export * from './lib/base.env.js';
export * from './lib/gateway.env.js';
export * from './lib/extractor-upstream.env.js';
export * from './lib/extractor-search.env.js';
export * from './lib/extractor-maps.env.js';
export * from './lib/extractor-retail.env.js';
