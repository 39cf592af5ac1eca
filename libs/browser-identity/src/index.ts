export * from './lib/browser-identity.js';
export * from './lib/chrome-brands.js';
export * from './lib/chrome-version.js';
export * from './lib/locale-identity.js';
