import { SetMetadata } from '@nestjs/common';

export const API_KEY_QUERY_PARAM = 'trawl:apiKeyQueryParam';

/**
 * Marks routes of a peer API whose clients send the key in the query string (SerpAPI's `api_key`): ApiKeyGuard reads
 * it from there when no header carries one. The key is then part of the URL, so nothing may echo or record the URL's
 * query on these routes (see redactQuery).
 */
export const ApiKeyInQuery = (param: string): MethodDecorator & ClassDecorator =>
  SetMetadata(API_KEY_QUERY_PARAM, param);
