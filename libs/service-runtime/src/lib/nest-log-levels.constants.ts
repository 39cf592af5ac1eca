import type { LogLevel } from '@nestjs/common';
import type { LevelWithSilent } from 'pino';

/** Nest's own log levels for each LOG_LEVEL, when a service runs with Nest's logger instead of its pino logger. */
export const NEST_LOG_LEVELS: Record<LevelWithSilent, LogLevel[] | false> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  silent: false,
};
