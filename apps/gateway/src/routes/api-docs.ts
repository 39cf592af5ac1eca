import { applyDecorators } from '@nestjs/common';
import { ApiBadRequestResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiUnauthorizedResponse } from '@nestjs/swagger';

/** OpenAPI description shared by every operation: the key header and the envelope on success and failure. */
export function ApiOperationDoc(summary: string, description?: string): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary, description }),
    ApiHeader({ name: 'x-api-key', required: true, description: 'API key.' }),
    ApiOkResponse({ description: 'The envelope: requestId, code 0, errorCode 200, message, timestamp, data.' }),
    ApiBadRequestResponse({ description: 'Envelope with errorCode 400; message names the field.' }),
    ApiUnauthorizedResponse({ description: 'Envelope with errorCode 401: missing or invalid x-api-key.' }),
  );
}
