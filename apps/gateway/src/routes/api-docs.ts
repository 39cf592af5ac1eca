import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse } from '@nestjs/swagger';

/**
 * OpenAPI description shared by every operation: the key header and the envelope on success and on each failure
 * status the gateway answers (docs/errors.md lists the codes behind each).
 */
export function ApiOperationDoc(summary: string, description?: string): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary, description }),
    ApiHeader({ name: 'x-api-key', required: true, description: 'API key.' }),
    ApiResponse({ status: 200, description: 'Envelope: requestId, code 0, errorCode 200, message "success", timestamp, data.' }),
    ApiResponse({ status: 400, description: 'VALIDATION_FAILED or MALFORMED_JSON; the message and data.field name the field.' }),
    ApiResponse({ status: 401, description: 'UNAUTHORIZED: missing or invalid x-api-key.' }),
    ApiResponse({ status: 413, description: 'PAYLOAD_TOO_LARGE.' }),
    ApiResponse({ status: 422, description: 'URL_NOT_ALLOWED (SSRF guard) or PAGE_NOT_RECOGNISED.' }),
    ApiResponse({
      status: 429,
      description: 'RATE_LIMITED: the key’s rate limit or concurrency cap. Retry-After (s) and RateLimit-* headers.',
    }),
    ApiResponse({ status: 502, description: 'UPSTREAM_ERROR or UPSTREAM_NOT_FOUND.' }),
    ApiResponse({ status: 503, description: 'UPSTREAM_BLOCKED, OVERLOADED, or SERVICE_UNAVAILABLE (service not deployed).' }),
    ApiResponse({ status: 504, description: 'UPSTREAM_TIMEOUT: not done within the request timeout.' }),
  );
}
