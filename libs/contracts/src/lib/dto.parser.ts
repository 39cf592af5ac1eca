import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { TrawlError } from './error-codes.constants.js';

type Constructor<T> = new () => T;

/**
 * Builds a DTO from untrusted input: applies the class's defaults, rejects unknown properties, validates. Throws a
 * VALIDATION_FAILED TrawlError whose message names the first bad field (and lists the rest).
 */
export function parseDto<T extends object>(cls: Constructor<T>, input: unknown): T {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TrawlError('VALIDATION_FAILED', 'request body must be a JSON object', { field: 'body' });
  }
  const instance = plainToInstance(cls, input, { exposeDefaultValues: true });
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) {
    const flat = flattenErrors(errors);
    const [first] = flat;
    const more =
      flat.length > 1
        ? ` (and ${flat.length - 1} more: ${flat
            .slice(1)
            .map((e) => e.message)
            .join('; ')})`
        : '';
    throw new TrawlError('VALIDATION_FAILED', `${first.message}${more}`, { field: first.field });
  }
  return instance;
}

interface FieldMessage {
  field: string;
  message: string;
}

function flattenErrors(errors: ValidationError[], prefix = ''): FieldMessage[] {
  return errors.flatMap((e) => {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((m) =>
      e.constraints?.whitelistValidation === m
        ? { field, message: `property ${field} is not allowed` }
        : { field, message: m },
    );
    return [...own, ...flattenErrors(e.children ?? [], field)];
  });
}
