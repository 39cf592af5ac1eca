export * from './lib/webhook-url.guard.js';
export * from './lib/webhook-signer.service.js';
export * from './lib/retry-schedule.policy.js';
export * from './lib/webhook-sender.service.js';
export * from './lib/webhook-dispatcher.service.js';
export * from './lib/webhook-dead-letters.store.js';
export * from './lib/host-lanes.queue.js';
