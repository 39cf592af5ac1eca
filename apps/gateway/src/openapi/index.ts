export {
  API_PREFIX,
  buildOpenApiDocument,
  LIMITS_TABLE,
  limitsMarkdown,
  OPERATIONS,
  serializeOpenApi,
} from './openapi-document.js';
export { renderApiDocs, renderOpenApiJson, type RenderedApiDocs } from './docs-app.js';
export { renderClientTypes } from './client-types.js';
export { RESPONSE_SCHEMAS, type JsonSchema } from './response-schemas.js';
