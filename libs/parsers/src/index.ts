export * from './lib/search/index.js';
export * from './lib/maps/index.js';
export * from './lib/retail/index.js';
export * from './lib/wall/index.js';
export * from './lib/completeness/index.js';
export * from './lib/locale/index.js';
export * from './lib/scan/index.js';
