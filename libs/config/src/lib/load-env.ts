import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

type Constructor<T> = new () => T;

/** Thrown at start-up when the environment is wrong; the message names every bad variable. */
export class EnvValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment: ${problems.join('; ')}`);
    this.name = 'EnvValidationError';
  }
}

/**
 * Reads one app's environment into its validated env class: defaults from the class, values converted to the
 * declared types (numbers; lists, flags and durations by the decorators of env-value.transforms), every problem
 * named. Callers get values ready to use and never parse a variable again. An empty variable counts as unset (its
 * default). Call it first thing at start-up (fail fast).
 */
export function loadEnv<T extends object>(cls: Constructor<T>, source: NodeJS.ProcessEnv = process.env): T {
  const known = Object.keys(new cls());
  const picked: Record<string, string> = {};
  for (const key of known) {
    const value = source[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const env = plainToInstance(cls, picked, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: true, validationError: { target: false } });
  if (errors.length > 0) {
    throw new EnvValidationError(
      errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? {}).join(', ') || 'invalid'}`),
    );
  }
  return env;
}
