import { ValidationArguments, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';

/** `params` appended to a URL: a flat object of strings, numbers or booleans. */
@ValidatorConstraint({ name: 'isUrlParams' })
export class IsUrlParams implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const entries = Object.entries(value);
    return (
      entries.length <= 50 &&
      entries.every(([k, v]) => k.length > 0 && k.length <= 100 && ['string', 'number', 'boolean'].includes(typeof v))
    );
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be an object of at most 50 string, number or boolean values`;
  }
}

/** Request `headers`: a flat object of string values with header-safe names. */
@ValidatorConstraint({ name: 'isHeaderMap' })
export class IsHeaderMap implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const entries = Object.entries(value);
    return (
      entries.length <= 50 &&
      entries.every(([k, v]) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) && typeof v === 'string' && !/[\r\n]/.test(v))
    );
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be an object of at most 50 header names with string values`;
  }
}

export type UrlParams = Record<string, string | number | boolean>;

/** Appends `params` to `url` as query parameters (existing ones of the same name are replaced). */
export function appendUrlParams(url: string, params: UrlParams | undefined): string {
  if (!params || Object.keys(params).length === 0) return url;
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, String(v));
  return u.toString();
}
