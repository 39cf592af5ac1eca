import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

/**
 * `storeInCache` of the synchronous operations (Firecrawl's name for it): whether this call's result may be kept in
 * the result cache for a later call's `maxAge`. Absent: kept only when the call asked for cached results (a `maxAge`
 * above 0, its own or the operation's configured default) and carried no credentials (a scrape's `headers`, a URL's
 * user:password); `true` keeps it (credentials included: the caller says so); `false` never keeps it. ADR 0021.
 */
export function IsStoreInCache(): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    ApiPropertyOptional({
      type: Boolean,
      description:
        'Whether this result may be kept in the result cache (for at most 24 h) for a later call’s `maxAge`. ' +
        'Absent: kept only when the call uses the cache (`maxAge` above 0, given or configured) and carries no ' +
        'credentials (scrape `headers` such as cookie or authorization, a URL with user:password), which are then ' +
        'neither read from nor written to the cache. true: kept, credentials included. false: never kept.',
    }),
    IsOptional(),
    IsBoolean(),
  ];
  return (target, key) => {
    for (const decorate of decorators) decorate(target, key);
  };
}
