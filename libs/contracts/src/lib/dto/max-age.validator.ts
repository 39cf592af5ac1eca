import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { LIMITS } from '../limits.constants.js';

/**
 * `maxAge` (ms) of the synchronous operations: a stored result of the same request (same API key) at most this old is
 * answered without asking the upstream; `0` always asks it. Absent: the operation's default (gateway env
 * CACHE_MAX_AGE_MS_<OPERATION>, 0 unless set). Integer 0 … LIMITS.maxCacheAgeMs. Whether the fresh result is kept for
 * later calls: `storeInCache` (ADR 0021).
 */
export function IsMaxAge(): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    ApiPropertyOptional({
      description:
        'Milliseconds: answer a stored result of the same request at most this old without asking the upstream ' +
        '(headers `Age` and `X-Trawl-Cache-Age-Ms` say how old). 0: always ask the upstream. Absent: the ' +
        'operation’s configured default (0 unless set).',
      minimum: 0,
      maximum: LIMITS.maxCacheAgeMs,
    }),
    IsOptional(),
    IsInt(),
    Min(0),
    Max(LIMITS.maxCacheAgeMs),
  ];
  return (target, key) => {
    for (const decorate of decorators) decorate(target, key);
  };
}
