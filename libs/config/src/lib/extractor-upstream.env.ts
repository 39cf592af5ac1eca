import { IsArray, IsInt, Matches, Max, Min } from 'class-validator';
import { NatsServiceEnv } from './base.env.js';
import { EnvList } from './env-value.transforms.js';

const PROXY_URL = /^https?:\/\/\S+$/;

/** Variables of every extractor that fetches upstream pages (search, maps, retail). */
export class ExtractorUpstreamEnv extends NatsServiceEnv {
  /** Proxies for upstream fetches, rotated round-robin, comma-separated (`http://user:pass@host:port`). */
  @EnvList()
  @IsArray()
  @Matches(PROXY_URL, { each: true, message: 'PROXY_URLS must be http(s):// URLs, comma-separated' })
  PROXY_URLS: string[] = [];

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

  /** Worker threads of the parse pool (the upstream parsers run there, off the event loop; ADR 0020). */
  @IsInt()
  @Min(1)
  @Max(32)
  PARSE_THREADS: number = 2;

  /**
   * Time one page's parse may take in the parse pool, ms; over it the worker is stopped and the request fails with
   * PAGE_TOO_COMPLEX (ADR 0020).
   */
  @IsInt()
  @Min(100)
  PARSE_BUDGET_MS: number = 5_000;

  /** Pages shorter than this (characters) are parsed on the event loop (the thread hop costs more); 0: none. */
  @IsInt()
  @Min(0)
  PARSE_INLINE_BELOW_CHARS: number = 0;
}
