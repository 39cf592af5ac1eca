import { ValidationOptions, isURL, registerDecorator, ValidationArguments } from 'class-validator';
import { LIMITS } from '../limits.constants.js';

/** True for an absolute http(s) URL of sane length. Which hosts may be fetched is the SSRF guard's call, not this. */
export function isHttpUrl(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= LIMITS.maxUrlLength &&
    isURL(value, { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true })
  );
}

/** Validates an absolute http(s) URL (loopback and IP hosts included; the SSRF guard decides reachability). */
export function IsHttpUrl(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isHttpUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => (options?.each && Array.isArray(value) ? value.every(isHttpUrl) : isHttpUrl(value)),
        defaultMessage: (args: ValidationArguments) =>
          `${options?.each ? 'each value in ' : ''}${args.property} must be an absolute http(s) URL`,
      },
    });
}
