export { parseProductPage } from './retail-page.parser.js';
export { buildProductUrl, asinFromUrl } from './product-url.builder.js';
export { parseMoney } from './money.parser.js';
export { classifyRetailWall } from './retail-blocked.detector.js';
