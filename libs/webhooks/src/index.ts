export * from './lib/webhook-url.guard.js';
export * from './lib/webhook-signer.js';
export * from './lib/retry-schedule.js';
export * from './lib/webhook-sender.js';
export * from './lib/webhook-dispatcher.js';
export * from './lib/webhook-dead-letters.js';
export * from './lib/host-lanes.js';
