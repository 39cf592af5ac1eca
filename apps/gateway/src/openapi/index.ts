export {
  API_PREFIX,
  buildOpenApiDocument,
  LIMITS_TABLE,
  limitsMarkdown,
  OPERATIONS,
  serializeOpenApi,
} from './openapi-document.js';
export { renderOpenApiJson } from './docs-app.js';
export { RESPONSE_SCHEMAS, type JsonSchema } from './response-schemas.js';
