import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { UPSTREAM_ENGINE_DOC, UPSTREAM_ENGINES } from '../upstream-engine.constants.js';

/** `engine` of a request to an upstream extractor: optional, one of UPSTREAM_ENGINES (absent: the service's). */
export function IsUpstreamEngine(): PropertyDecorator {
  // In the order a stack of decorators is applied (the bottom one first), so the rules are those of a stack.
  const decorators: PropertyDecorator[] = [
    IsIn(UPSTREAM_ENGINES, { message: `engine must be one of: ${UPSTREAM_ENGINES.join(', ')}` }),
    IsOptional(),
    ApiPropertyOptional({ enum: UPSTREAM_ENGINES, description: UPSTREAM_ENGINE_DOC }),
  ];
  return (target, key) => {
    for (const decorate of decorators) decorate(target, key);
  };
}
