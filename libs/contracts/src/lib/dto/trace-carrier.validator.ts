import { ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';

/** Most entries a W3C trace carrier (traceparent, tracestate, baggage) may have on the wire. */
export const MAX_TRACE_ENTRIES = 10;

/** Whether `value` is a trace carrier: an object of at most MAX_TRACE_ENTRIES strings. */
export function isTraceCarrier(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length <= MAX_TRACE_ENTRIES &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

/** `trace` of a job or outcome: W3C trace context (an object of at most 10 strings). */
@ValidatorConstraint({ name: 'isTraceCarrier' })
export class IsTraceCarrier implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isTraceCarrier(value);
  }

  defaultMessage(): string {
    return `trace must be an object of at most ${MAX_TRACE_ENTRIES} strings`;
  }
}
