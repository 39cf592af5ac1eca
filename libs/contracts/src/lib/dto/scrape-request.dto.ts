import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  Validate,
} from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import { UPSTREAM_ENGINES } from '../upstream-engine.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { HEADER_MAP_DOC, IsHeaderMap } from './url-params.validator.js';
import { IsMaxAge } from './max-age.validator.js';
import { IsStoreInCache } from './store-in-cache.validator.js';
import {
  HasNoHostHeader,
  IsBrowserOnlyFlag,
  IsScrapeActions,
  IsScrapeFormats,
  IsScrapeLocation,
} from './scrape-actions.validator.js';
import {
  SCRAPE_ACTION_TYPES,
  SCREENSHOT_FORMATS,
  type ScrapeAction,
  type ScrapeLocation,
  type ScreenshotFormat,
} from './scrape-browser.types.js';
import { LLM_FORMAT_LIMITS, SUMMARY_FORMAT, type JsonFormat, type SummaryFormat } from './llm-formats.types.js';

/**
 * `markdown`: the page's main content (or the whole page) as markdown; `html`: the page as rendered (the spec's
 * field, base64 of the percent-encoded markup); `rawHtml`: the document as served; `links`: every link of the page.
 */
export const SCRAPE_FORMATS = ['markdown', 'html', 'rawHtml', 'links'] as const;
export type ScrapeFormat = (typeof SCRAPE_FORMATS)[number];
/** An entry of `formats`: a format name, a screenshot (ADR 0019), or a format a language model answers (ADR 0029). */
export type ScrapeFormatOption =
  | ScrapeFormat
  | (typeof SCREENSHOT_FORMATS)[number]
  | ScreenshotFormat
  | typeof SUMMARY_FORMAT
  | SummaryFormat
  | JsonFormat;

/** The OpenAPI schema of one `formats` entry (POST /scrape's, and every `scrapeOptions` that takes them). */
export const SCRAPE_FORMAT_ITEMS_DOC: NonNullable<ApiPropertyOptions['items']> = {
  oneOf: [
    { type: 'string', enum: [...SCRAPE_FORMATS, ...SCREENSHOT_FORMATS, SUMMARY_FORMAT] },
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      description:
        'An object read out of the page by the language model: `schema` (JSON Schema, at most ' +
        `${LLM_FORMAT_LIMITS.maxSchemaChars} characters) the answer must follow, \`prompt\` (at most ` +
        `${LLM_FORMAT_LIMITS.maxPromptChars} characters) saying what to read; at least one. Answered in \`json\`.`,
      properties: {
        type: { type: 'string', enum: ['json'] },
        schema: { type: 'object', additionalProperties: true },
        prompt: { type: 'string' },
      },
    },
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      description: 'A summary of the page by the language model, answered in `summary`.',
      properties: { type: { type: 'string', enum: ['summary'] } },
    },
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['screenshot'] },
        fullPage: { type: 'boolean' },
        quality: { type: 'integer', minimum: 1, maximum: 100, description: 'A JPEG of this quality.' },
        viewport: {
          type: 'object',
          required: ['width', 'height'],
          properties: { width: { type: 'integer' }, height: { type: 'integer' } },
        },
      },
    },
  ],
};

/**
 * `browser`: Chromium renders the page. `http`: a plain fetch, no scripts. `auto`: fetch first, browser if needed.
 * The same engines as the upstream extractors' (one list: UPSTREAM_ENGINES).
 */
export const SCRAPE_ENGINES = UPSTREAM_ENGINES;
export type ScrapeEngine = (typeof SCRAPE_ENGINES)[number];

/** POST /scrape. Field names follow Firecrawl's scrape API (see docs/decisions/0002-scrape-request.md). */
export class ScrapeRequestDto {
  @ApiProperty({ description: 'URL to scrape.', example: 'https://example.com/' })
  @IsHttpUrl()
  url!: string;

  @ApiPropertyOptional({
    description:
      'What to return. `screenshot` (the viewport) and `screenshot@fullPage`, or the object form, need the browser ' +
      'engine (ADR 0019). `summary` and `{ type: "json", schema, prompt }` are answered by the language model ' +
      'configured on the service (LLM_BASE_URL); without one they are refused with 400 (ADR 0029).',
    type: 'array',
    items: SCRAPE_FORMAT_ITEMS_DOC,
    default: ['markdown'],
  })
  @Validate(IsScrapeFormats, [SCRAPE_FORMATS])
  formats: ScrapeFormatOption[] = ['markdown'];

  @ApiPropertyOptional({
    ...HEADER_MAP_DOC,
    description: `Headers sent with the page request (cookies, user agent). ${HEADER_MAP_DOC.description}`,
  })
  @IsOptional()
  @Validate(IsHeaderMap)
  @Validate(HasNoHostHeader)
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      'Browser engine: send `headers` with every request the page makes (third parties included). Default false: ' +
      'a `Cookie` header becomes cookies of the page’s host, other headers go only to the requested origin’s page ' +
      '(ADR 0019).',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  headersEverywhere?: boolean;

  @ApiPropertyOptional({ description: 'Milliseconds for the whole scrape.', default: LIMITS.defaultTimeoutMs })
  @IsInt()
  @Min(LIMITS.minTimeoutMs)
  @Max(LIMITS.maxTimeoutMs)
  timeout: number = LIMITS.defaultTimeoutMs;

  @ApiPropertyOptional({ description: 'Milliseconds to wait after load before reading the page.', default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(LIMITS.maxWaitForMs)
  waitFor?: number;

  @ApiPropertyOptional({ enum: SCRAPE_ENGINES, description: 'Defaults to the service configuration (browser).' })
  @IsOptional()
  @IsIn(SCRAPE_ENGINES, { message: `engine must be one of: ${SCRAPE_ENGINES.join(', ')}` })
  engine?: ScrapeEngine;

  @IsMaxAge()
  maxAge?: number;

  @IsStoreInCache()
  storeInCache?: boolean;

  @ApiPropertyOptional({
    description:
      'The markdown is the main content of the page (navigation, banners, sidebars, footers, related links and ' +
      'comments left out); false: the whole page. `html` and `rawHtml` are never narrowed. ADR 0023.',
    default: true,
  })
  @IsOptional()
  @IsBoolean()
  onlyMainContent?: boolean;

  @ApiPropertyOptional({
    description: 'CSS selectors: the markdown is made of the matching elements only (before the main content).',
    type: [String],
    example: ['article', '.post-body'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxTagSelectors)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(LIMITS.maxTagSelectorChars, { each: true })
  includeTags?: string[];

  @ApiPropertyOptional({
    description: 'CSS selectors: the matching elements are left out of the markdown (before the main content).',
    type: [String],
    example: ['.ad', '#comments'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxTagSelectors)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(LIMITS.maxTagSelectorChars, { each: true })
  excludeTags?: string[];

  @ApiPropertyOptional({
    description:
      'Refuse the requests the page makes to ads and trackers (advertising, site analytics) by Ghostery’s filter ' +
      'engine over its tracker database and EasyList; the page’s own resources, CDNs and embeds load. Browser ' +
      'engine: the requests are never sent. Both engines: the elements EasyList’s element-hiding rules hide (ad ' +
      'containers) are left out of `markdown`; `html` and `rawHtml` keep them. ADR 0030.',
    default: true,
  })
  @IsOptional()
  @IsBoolean()
  blockAds?: boolean;

  // Browser options (ADR 0019): the browser engine only; `engine: http` with any of them is refused.

  @ApiPropertyOptional({
    description:
      'Actions before the page is read (browser engine), in Firecrawl’s shapes: wait (milliseconds or selector), ' +
      'click, write, press, scroll, screenshot, scrape, executeJavascript. At most 50.',
    type: 'array',
    items: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { type: 'string', enum: [...SCRAPE_ACTION_TYPES] },
        milliseconds: { type: 'integer' },
        selector: { type: 'string' },
        all: { type: 'boolean' },
        text: { type: 'string' },
        key: { type: 'string' },
        direction: { type: 'string', enum: ['up', 'down'] },
        fullPage: { type: 'boolean' },
        quality: { type: 'integer' },
        script: { type: 'string' },
      },
    },
  })
  @IsOptional()
  @Validate(IsScrapeActions)
  actions?: ScrapeAction[];

  @ApiPropertyOptional({
    description:
      'Where the page is asked from (browser engine): Accept-Language, the browser’s locale, time zone and ' +
      'geolocation, and an upstream proxy of that country when one is configured.',
    type: 'object',
    properties: {
      country: { type: 'string', example: 'DE', description: 'ISO 3166-1 alpha-2.' },
      languages: { type: 'array', items: { type: 'string' }, example: ['de-DE'] },
    },
  })
  @IsOptional()
  @Validate(IsScrapeLocation)
  location?: ScrapeLocation;

  @ApiPropertyOptional({
    description: 'Emulate a phone (browser engine): viewport, touch, and a mobile user agent and client hints.',
    default: false,
  })
  @IsOptional()
  @Validate(IsBrowserOnlyFlag)
  mobile?: boolean;
}
