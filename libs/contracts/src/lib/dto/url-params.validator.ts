import { ValidationArguments, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';

/** Most entries of `params` and of `headers`; longest `params` name. */
export const MAX_URL_PARAMS = 50;
export const MAX_URL_PARAM_NAME = 100;
export const MAX_HEADERS = 50;

/** OpenAPI of a `params` field: the bounds IsUrlParams enforces. */
export const URL_PARAMS_DOC = {
  type: 'object',
  maxProperties: MAX_URL_PARAMS,
  additionalProperties: true,
  description:
    `At most ${MAX_URL_PARAMS} parameters, names of 1-${MAX_URL_PARAM_NAME} characters, values strings, numbers ` +
    "or booleans; appended after the URL's own query, which is kept as sent.",
} as const;

/** OpenAPI of a `headers` field: the bounds IsHeaderMap enforces. */
export const HEADER_MAP_DOC = {
  type: 'object',
  maxProperties: MAX_HEADERS,
  additionalProperties: { type: 'string' },
  description: `At most ${MAX_HEADERS} headers: token names, string values without CR or LF.`,
} as const;

/** `params` appended to a URL: a flat object of strings, numbers or booleans. */
@ValidatorConstraint({ name: 'isUrlParams' })
export class IsUrlParams implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const entries = Object.entries(value);
    return (
      entries.length <= MAX_URL_PARAMS &&
      entries.every(
        ([k, v]) =>
          k.length > 0 && k.length <= MAX_URL_PARAM_NAME && ['string', 'number', 'boolean'].includes(typeof v),
      )
    );
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be an object of at most ${MAX_URL_PARAMS} string, number or boolean values`;
  }
}

/** Request `headers`: a flat object of string values with header-safe names. */
@ValidatorConstraint({ name: 'isHeaderMap' })
export class IsHeaderMap implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const entries = Object.entries(value);
    return (
      entries.length <= MAX_HEADERS &&
      entries.every(([k, v]) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) && typeof v === 'string' && !/[\r\n]/.test(v))
    );
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be an object of at most ${MAX_HEADERS} header names with string values`;
  }
}

export type UrlParams = Record<string, string | number | boolean>;

/**
 * Appends `params` to `url` as query parameters, after the URL's own query and before its fragment. The URL's own
 * text is kept as it was sent (its encoding, its parameters, one of the same name included: the spec appends, it does
 * not replace); only the appended pairs are encoded (`application/x-www-form-urlencoded`, as URLSearchParams).
 */
export function appendUrlParams(url: string, params: UrlParams | undefined): string {
  if (!params || Object.keys(params).length === 0) return url;
  const appended = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  const hash = url.indexOf('#');
  const [base, fragment] = hash === -1 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  const separator = !base.includes('?') ? '?' : /[?&]$/.test(base) ? '' : '&';
  return `${base}${separator}${appended}${fragment}`;
}
