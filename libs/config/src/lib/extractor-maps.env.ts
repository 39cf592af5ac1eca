import { IsIn, IsString, Matches } from 'class-validator';
import { UPSTREAM_ENGINES, type UpstreamEngine } from '@trawl/contracts';
import { ExtractorUpstreamEnv } from './extractor-upstream.env.js';

export class ExtractorMapsEnv extends ExtractorUpstreamEnv {
  /** Where map searches go: Google, or the upstream simulator (`http://127.0.0.1:8090`). */
  @IsString()
  @Matches(/^https?:\/\/[^\s/]+\/?$/, { message: 'MAPS_BASE_URL must be an origin such as https://www.google.com' })
  MAPS_BASE_URL: string = 'https://www.google.com';

  /** How pages are fetched when a request names no `engine`: http, browser (the fleet over NATS) or auto. */
  @IsIn(UPSTREAM_ENGINES, { message: `MAPS_ENGINE must be one of: ${UPSTREAM_ENGINES.join(', ')}` })
  MAPS_ENGINE: UpstreamEngine = 'auto';
}
