import { Transform, type TransformFnParams } from 'class-transformer';

/** Splits a comma-separated value into trimmed, non-empty items. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** One duration (`500ms`, `5s`, `2m`, `1h`) in milliseconds; undefined when the text is not one. */
export function durationMs(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h)$/.exec(text);
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : undefined;
}

/*
 * The decorators below turn a variable's text into its type while `loadEnv` reads the environment, before it is
 * validated. They read the text as given (class-transformer's implicit conversion would already have made `'false'`
 * a `true` boolean and a string an array). Text they cannot read is passed on unchanged, so the field's validator
 * refuses it and names the variable (`IsBoolean`, `IsInt({ each: true })`, ...): a bad value is an error at start-up,
 * never a silent default. An unset variable keeps the field's default and is not transformed.
 */

/** The variable's text as given to `loadEnv`. */
function raw({ obj, key }: TransformFnParams): unknown {
  return (obj as Record<string, unknown>)[key];
}

/** A comma-separated variable, read as the list of its trimmed, non-empty items (`a, b,,c` → `['a', 'b', 'c']`). */
export function EnvList(): PropertyDecorator {
  return Transform((params) => {
    const value = raw(params);
    return typeof value === 'string' ? splitList(value) : value;
  });
}

/** A `true`/`false` variable, read as a boolean. */
export function EnvFlag(): PropertyDecorator {
  return Transform((params) => {
    const value = raw(params);
    return value === 'true' ? true : value === 'false' ? false : value;
  });
}

/** A comma-separated list of durations (`5s,30s,2m,1h`), read as milliseconds. */
export function EnvDurationsMs(): PropertyDecorator {
  return Transform((params) => {
    const value = raw(params);
    return typeof value === 'string' ? splitList(value).map((item) => durationMs(item) ?? item) : value;
  });
}
