export * from './lib/api-types.generated.js';
export * from './lib/trawl-api.error.js';
export * from './lib/trawl.client.js';
export * from './lib/webhook.validator.js';
