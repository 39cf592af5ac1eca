export { parseSearchPage } from './search-page.parser.js';
export type { ParseSearchPageOptions } from './search-page.parser.js';
export { buildSearchUrl, encodeUule } from './search-url.builder.js';
export type { SearchUrlRequest } from './search-url.builder.js';
export { classifySearchWall } from './search-page.classifier.js';
