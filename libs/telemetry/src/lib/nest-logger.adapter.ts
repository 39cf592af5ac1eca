import type { LoggerService, LogLevel } from '@nestjs/common';
import type { Level, Logger } from 'pino';

const NEST_TO_PINO: Record<LogLevel, Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

function looksLikeStack(value: unknown): value is string {
  return typeof value === 'string' && /\n\s+at /.test(value);
}

/**
 * Nest's LoggerService over a pino logger: `NestFactory.create(AppModule, { logger: new NestLoggerAdapter(logger) })`
 * or `app.useLogger(...)`. Nest's trailing string argument becomes `context`, an error's stack becomes `stack`, an
 * object message is merged into the line.
 */
export class NestLoggerAdapter implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: LogLevel, message: unknown, params: unknown[]): void {
    const fields: Record<string, unknown> = {};
    const rest = [...params];
    const last = rest.at(-1);
    if (typeof last === 'string' && !looksLikeStack(last)) {
      fields['context'] = last;
      rest.pop();
    }
    const stack = rest.find(looksLikeStack);
    if (stack) fields['stack'] = stack;
    let msg: string;
    if (message instanceof Error) {
      fields['err'] = message;
      msg = message.message;
    } else if (message !== null && typeof message === 'object') {
      Object.assign(fields, message);
      msg = typeof fields['msg'] === 'string' ? fields['msg'] : '';
      delete fields['msg'];
    } else {
      msg = String(message);
    }
    this.logger[NEST_TO_PINO[level]](fields, msg);
  }
}
