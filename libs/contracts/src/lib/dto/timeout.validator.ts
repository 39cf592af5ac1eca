import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { LIMITS } from '../limits.constants.js';

/**
 * `timeout` (ms) of a request: an integer LIMITS.minTimeoutMs … LIMITS.maxTimeoutMs; the property's initialiser is
 * the default (LIMITS.defaultTimeoutMs). `description` is what the OpenAPI document says of it, when anything.
 */
export function IsTimeout(description?: string): PropertyDecorator {
  // In the order a stack of decorators is applied (the bottom one first), so the rules are those of a stack.
  const decorators: PropertyDecorator[] = [
    Max(LIMITS.maxTimeoutMs),
    Min(LIMITS.minTimeoutMs),
    IsInt(),
    ApiPropertyOptional({ ...(description ? { description } : {}), default: LIMITS.defaultTimeoutMs }),
  ];
  return (target, key) => {
    for (const decorate of decorators) decorate(target, key);
  };
}
