import { IsIn, IsString, Matches } from 'class-validator';
import { UPSTREAM_ENGINES, type UpstreamEngine } from '@trawl/contracts';
import { ExtractorUpstreamEnv } from './extractor-upstream.env.js';

export class ExtractorRetailEnv extends ExtractorUpstreamEnv {
  /**
   * The product site's origin. Product URLs given to /extract are fetched as given while this is an Amazon host; when
   * it is anything else (the upstream simulator, a stand-in), Amazon URLs are re-pointed at it, path and query kept
   * (libs/upstream UpstreamOrigin; see apps/extractor-retail/README.md).
   */
  @IsString()
  @Matches(/^https?:\/\/[^\s/]+\/?$/, { message: 'RETAIL_BASE_URL must be an origin such as https://www.amazon.com' })
  RETAIL_BASE_URL: string = 'https://www.amazon.com';

  /** How pages are fetched when a request names no `engine`: http, browser (the fleet over NATS) or auto. */
  @IsIn(UPSTREAM_ENGINES, { message: `RETAIL_ENGINE must be one of: ${UPSTREAM_ENGINES.join(', ')}` })
  RETAIL_ENGINE: UpstreamEngine = 'auto';
}
