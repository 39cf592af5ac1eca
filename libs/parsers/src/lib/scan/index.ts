export { MAX_DOM_DEPTH, MAX_PARSER_DEPTH } from './page-dom.factory.js';
export { newScanMeter, workOf, type ScanMeter } from './scan-meter.types.js';
