export * from './lib/browser.pool.js';
export * from './lib/browser-pool.types.js';
export * from './lib/browser-pool.options.js';
export * from './lib/chromium-path.resolver.js';
export * from './lib/permit.queue.js';
export * from './lib/settle-page.util.js';
export * from './lib/ad-blocker.service.js';
