import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  Validate,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsHeaderMap } from './url-params.validator.js';

/** A cookie a render sends with its page request (set in the browser context for the page's URL). */
export interface RenderCookie {
  name: string;
  value: string;
}

/** `cookies`: at most 20 `{ name, value }` with cookie-safe names and values. */
@ValidatorConstraint({ name: 'isCookieList' })
export class IsCookieList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return (
      Array.isArray(value) &&
      value.length <= 20 &&
      value.every(
        (c: unknown) =>
          typeof c === 'object' &&
          c !== null &&
          typeof (c as RenderCookie).name === 'string' &&
          /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/.test((c as RenderCookie).name) &&
          typeof (c as RenderCookie).value === 'string' &&
          /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]{0,4000}$/.test((c as RenderCookie).value),
      )
    );
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be a list of at most 20 { name, value } cookies with cookie-safe characters`;
  }
}

/**
 * SUBJECTS.renderPage: an upstream extractor asks the browser fleet (extractor-scrape) for one page rendered in
 * Chromium. Not an HTTP route: extractors send it over NATS. The same SSRF guard as /scrape applies to `url`.
 */
export class RenderPageRequestDto {
  @IsHttpUrl()
  url!: string;

  /** Milliseconds for the whole render (queueing for a page included). */
  @IsInt()
  @Min(1)
  @Max(LIMITS.maxTimeoutMs)
  timeout: number = LIMITS.defaultTimeoutMs;

  /** Host language: Accept-Language and the browser's locale. */
  @IsOptional()
  @IsString()
  @Matches(/^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$/, { message: 'hl must be a language code such as en or pt-BR' })
  hl?: string;

  /** Country: the identity's region. */
  @IsOptional()
  @IsString()
  @Matches(/^[a-zA-Z]{2}$/, { message: 'gl must be a two-letter country code such as US' })
  gl?: string;

  /** Extra headers for the page's requests (a referer, for instance). */
  @IsOptional()
  @Validate(IsHeaderMap)
  headers?: Record<string, string>;

  /** Cookies for the page's host (Google's consent cookie for EU regions). */
  @IsOptional()
  @Validate(IsCookieList)
  cookies?: RenderCookie[];

  /** Milliseconds to wait after load before reading the page (besides the settle wait). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(LIMITS.maxWaitForMs)
  waitFor?: number;

  /** A session key: renders with the same key may share an identity and proxy (a hint; the fleet may ignore it). */
  @IsOptional()
  @IsString()
  @Matches(/^[\w.:-]{1,100}$/, { message: 'session must be 1-100 letters, digits or . _ : -' })
  session?: string;

  /**
   * A session the caller's upstream blocked (a captcha or block page after a render in it): the fleet replica that
   * takes this request retires it (its identity is dropped and its upstream proxy cools down); `session` names the
   * one to use now.
   */
  @IsOptional()
  @IsString()
  @Matches(/^[\w.:-]{1,100}$/, { message: 'retireSession must be 1-100 letters, digits or . _ : -' })
  retireSession?: string;

  /** What the page is, for error messages ("search page"). */
  @IsOptional()
  @IsString()
  @Matches(/^[\w -]{1,40}$/, { message: 'what must be 1-40 letters, digits, spaces or - _' })
  what?: string;

  /** Engine of the render, always `browser` (reserved so a later version can ask for others). */
  @IsOptional()
  @IsIn(['browser'])
  engine?: 'browser';
}

/** The rendered page. */
export interface RenderPageReply {
  /** Final URL, after redirects and client-side navigation. */
  url: string;
  /** HTTP status of the main response. */
  status: number;
  /** Headers of the main response (lower-case names). */
  headers: Record<string, string>;
  /** The rendered document (doctype and outerHTML). */
  html: string;
  /** Milliseconds spent in the browser (navigation to snapshot). */
  renderMs: number;
  /** The fleet's Chromium version (e.g. `156.0.8078.73`): the HTTP engines claim the same browser. */
  browserVersion?: string;
}
