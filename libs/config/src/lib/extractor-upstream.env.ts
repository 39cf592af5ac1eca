import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { BaseEnv } from './base.env.js';

/** `engine` values of the upstream extractors (UPSTREAM_ENGINES in @trawl/contracts). */
export const UPSTREAM_ENGINE_VALUES = ['http', 'browser', 'auto'] as const;

const URL_LIST = /^(https?:\/\/[^,\s]+(,\s*https?:\/\/[^,\s]+)*)?$/;

/** Variables of every extractor that fetches upstream pages (search, maps, retail). */
export class ExtractorUpstreamEnv extends BaseEnv {
  /** Port of the ops server (`/metrics`, `/health/live`, `/health/ready`); 0 turns it off. */
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT: number = 9464;

  /** Hosts or CIDRs the SSRF guard lets through (the simulator on 127.0.0.1, tests), comma-separated. */
  @IsString()
  SSRF_ALLOW_HOSTS: string = '';

  /** Proxies for upstream fetches, rotated round-robin, comma-separated (`http://user:pass@host:port`). */
  @IsString()
  @Matches(URL_LIST, { message: 'PROXY_URLS must be http(s):// URLs, comma-separated' })
  PROXY_URLS: string = '';

  /** How long a proxy that got blocked is set aside, ms. */
  @IsInt()
  @Min(0)
  PROXY_COOLDOWN_MS: number = 300_000;

  /** Largest upstream page accepted, bytes. */
  @IsInt()
  @Min(1024)
  UPSTREAM_MAX_BYTES: number = 10 * 1024 * 1024;

  /**
   * How long, ms, an upstream host that answered plain HTTP with a wall (JavaScript, consent, challenge) is
   * remembered as needing a browser, so `auto` skips the HTTP try for it (per replica, in memory).
   */
  @IsInt()
  @Min(0)
  UPSTREAM_BROWSER_MEMORY_MS: number = 600_000;
}
