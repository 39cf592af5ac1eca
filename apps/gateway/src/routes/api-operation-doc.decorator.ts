import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiOperation } from '@nestjs/swagger';

/**
 * OpenAPI description shared by every operation: summary and the key header. Responses (the envelope with a typed
 * `data`, and one response per error status with its codes) are set in one place, src/openapi/openapi-document.builder.ts.
 */
export function ApiOperationDoc(summary: string, description?: string): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary, description }),
    ApiHeader({ name: 'x-api-key', required: true, description: 'API key.' }),
  );
}
