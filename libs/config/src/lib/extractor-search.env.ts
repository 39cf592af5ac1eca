import { IsIn, IsString, Matches } from 'class-validator';
import { UPSTREAM_ENGINES, type UpstreamEngine } from '@trawl/contracts';
import { ExtractorUpstreamEnv } from './extractor-upstream.env.js';

export class ExtractorSearchEnv extends ExtractorUpstreamEnv {
  /** Where search pages come from: Google, or the upstream simulator (`http://127.0.0.1:8090`). */
  @IsString()
  @Matches(/^https?:\/\/[^\s/]+\/?$/, { message: 'SEARCH_BASE_URL must be an origin such as https://www.google.com' })
  SEARCH_BASE_URL: string = 'https://www.google.com';

  /** Results asked for per search page (10, or 100 where the upstream still honours num=100). */
  @IsIn([10, 100])
  SEARCH_PAGE_SIZE: number = 10;

  /** How pages are fetched when a request names no `engine`: http, browser (the fleet over NATS) or auto. */
  @IsIn(UPSTREAM_ENGINES, { message: `SEARCH_ENGINE must be one of: ${UPSTREAM_ENGINES.join(', ')}` })
  SEARCH_ENGINE: UpstreamEngine = 'auto';
}
