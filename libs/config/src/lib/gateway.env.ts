import { IsInt, IsString, Max, Min } from 'class-validator';
import { BaseEnv } from './base.env.js';

export class GatewayEnv extends BaseEnv {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 8080;

  @IsString()
  HOST: string = '0.0.0.0';

  /** Bootstrap API keys, comma-separated (development and tests; production keys live in the key store). */
  @IsString()
  API_KEYS: string = '';

  /** Largest accepted request body, bytes. */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 5 * 1024 * 1024;

  /** Hosts or CIDRs the SSRF guard lets through (tests, local demos), comma-separated. */
  @IsString()
  SSRF_ALLOW_HOSTS: string = '';

  /** Comma-separated origins allowed by CORS; empty turns CORS off. */
  @IsString()
  CORS_ORIGINS: string = '';
}
