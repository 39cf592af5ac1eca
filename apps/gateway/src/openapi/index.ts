export {
  API_PREFIX,
  buildOpenApiDocument,
  LIMITS_TABLE,
  limitsMarkdown,
  OPERATIONS,
  serializeOpenApi,
} from './openapi-document.builder.js';
export { renderApiDocs, renderOpenApiJson, type RenderedApiDocs } from './api-docs.renderer.js';
export { renderClientTypes } from './client-types.renderer.js';
