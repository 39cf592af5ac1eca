import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import {
  IsOptional,
  Validate,
  validateSync,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidationError,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import { IsScrapeFormats } from './scrape-actions.validator.js';
import {
  SCRAPE_FORMAT_ITEMS_DOC,
  SCRAPE_FORMATS,
  ScrapeRequestDto,
  type ScrapeFormatOption,
} from './scrape-request.dto.js';

/**
 * The per-page options of POST /scrape, by name: what every path that scrapes a page carries to it (`/extract` type
 * scrape, URL batches of that type, the Firecrawl batch; ADR 0039). The request's own fields stay the request's:
 * `url`, `timeout` and `engine` (a batch has its own), `maxAge` and `storeInCache` (the gateway's result cache, which
 * only its synchronous path reads).
 */
export const PAGE_SCRAPE_OPTION_FIELDS = [
  'formats',
  'headers',
  'headersEverywhere',
  'waitFor',
  'onlyMainContent',
  'includeTags',
  'excludeTags',
  'blockAds',
  'actions',
  'location',
  'mobile',
] as const;
export type PageScrapeOptionField = (typeof PAGE_SCRAPE_OPTION_FIELDS)[number];

/**
 * `scrapeOptions` of `/extract` type `scrape` and of a URL batch of that type: POST /scrape's per-page options with
 * POST /scrape's own rules (the fields are picked from ScrapeRequestDto, validators and documentation included).
 */
export class ScrapeOptionsDto extends PickType(
  ScrapeRequestDto,
  PAGE_SCRAPE_OPTION_FIELDS.filter((f): f is Exclude<PageScrapeOptionField, 'formats'> => f !== 'formats'),
) {
  // POST /scrape's rule; without it a task gets the configured formats, not POST /scrape's default.
  @ApiPropertyOptional({
    description:
      'As on POST /scrape (a screenshot, `summary` and `json` included). Without it: the configured formats of a ' +
      '`scrape` extraction (TASK_SCRAPE_FORMATS for URL tasks; markdown and html unless configured).',
    type: 'array',
    items: SCRAPE_FORMAT_ITEMS_DOC,
  })
  @IsOptional()
  @Validate(IsScrapeFormats, [SCRAPE_FORMATS])
  formats?: ScrapeFormatOption[];
}

/** The options as they travel (in job data and in the request): each optional, as given. */
export type ScrapeOptions = Partial<Pick<ScrapeRequestDto, PageScrapeOptionField>>;

/** What the options are checked as: with the request's engine beside them (the browser-only options look at it). */
class ScrapeOptionsCheck extends PickType(ScrapeRequestDto, [...PAGE_SCRAPE_OPTION_FIELDS, 'engine']) {}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first error as `<option><rest of the message>`: the option named first, as POST /scrape's own messages do. */
function firstMessage(errors: ValidationError[]): string | undefined {
  for (const e of errors) {
    const own = Object.values(e.constraints ?? {})[0];
    if (own) return own.startsWith(e.property) ? own : `${e.property}: ${own}`;
    const nested = firstMessage(e.children ?? []);
    if (nested) return `${e.property}.${nested}`;
  }
  return undefined;
}

/**
 * Why `scrapeOptions` is wrong, or undefined: type `scrape` only, only the per-page option names, each checked by
 * POST /scrape's rules with the request's `engine`; in a batch (`urls`), their JSON times the URLs bounded
 * (LIMITS.maxBatchScrapeOptionsBytes). The message names the option (`.includeTags must be an array`).
 */
export function scrapeOptionsProblem(
  value: unknown,
  request: { type?: unknown; engine?: unknown; urls?: unknown },
): string | undefined {
  if (request.type !== 'scrape') return ' apply to type scrape only';
  if (!isObject(value)) return ` must be an object of: ${PAGE_SCRAPE_OPTION_FIELDS.join(', ')}`;
  const unknown = Object.keys(value).find((k) => !(PAGE_SCRAPE_OPTION_FIELDS as readonly string[]).includes(k));
  if (unknown !== undefined) return `.${unknown} is not a page option: ${PAGE_SCRAPE_OPTION_FIELDS.join(', ')}`;
  const check = plainToInstance(ScrapeOptionsCheck, {
    ...value,
    ...(request.engine !== undefined ? { engine: request.engine } : {}),
  });
  // The request's engine is the request's own field, checked there.
  const errors = validateSync(check, { validationError: { target: false, value: false } }).filter(
    (e) => e.property !== 'engine',
  );
  const message = firstMessage(errors);
  if (message !== undefined) return `.${message}`;
  if (Array.isArray(request.urls)) {
    // A batch's options are stored with each of its tasks.
    const stored = new TextEncoder().encode(JSON.stringify(value)).length * request.urls.length;
    if (stored > LIMITS.maxBatchScrapeOptionsBytes)
      return (
        ` are stored with each of the ${request.urls.length} tasks: ${stored} bytes in all, more than ` +
        `${LIMITS.maxBatchScrapeOptionsBytes} (fewer URLs per batch, or smaller options)`
      );
  }
  return undefined;
}

/** `scrapeOptions` (type `scrape`): POST /scrape's per-page options, checked by POST /scrape's rules. */
@ValidatorConstraint({ name: 'isScrapeOptions' })
export class IsScrapeOptions implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return scrapeOptionsProblem(value, args.object as Obj) === undefined;
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property}${scrapeOptionsProblem(args.value, args.object as Obj) ?? ' are not valid'}`;
  }
}
