import { SetMetadata } from '@nestjs/common';

export const NO_ENVELOPE = 'trawl:noEnvelope';

/**
 * Marks routes of a peer API (Firecrawl, SerpAPI, MCP) whose answers are that peer's own shapes: EnvelopeInterceptor
 * leaves their results as they are. Their errors take the peer's shape by path (compat-error.mapper.ts).
 */
export const NoEnvelope = (): MethodDecorator & ClassDecorator => SetMetadata(NO_ENVELOPE, true);
