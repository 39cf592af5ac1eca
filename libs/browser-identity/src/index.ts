export * from './lib/browser-identities.source.js';
export * from './lib/chrome-brands.builder.js';
export * from './lib/chrome-version.resolver.js';
export * from './lib/locale-identity.factory.js';
export * from './lib/country-position.constants.js';
