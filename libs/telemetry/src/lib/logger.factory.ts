import { pino, stdTimeFunctions, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { activeTraceIds } from './trace-context.util.js';

export type { Logger } from 'pino';

/** Header and field names whose values never reach a log line. */
export const REDACTED_KEYS = [
  'x-api-key',
  'x-admin-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'webhook-signature',
  'apiKey',
  'api_key',
  'secret',
  'signingSecret',
  'webhookSecret',
  'password',
  'token',
  'API_KEYS',
  'ADMIN_API_KEY',
  'PROXY_URLS',
  'WEBHOOK_SIGNING_SECRET',
  'KEYS_ENCRYPTION_KEY',
] as const;

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of REDACTED_KEYS) {
    const k = /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `["${key}"]`;
    const bare = k.startsWith('.') ? k.slice(1) : k;
    paths.push(bare, `*${k}`, `headers${k}`, `*.headers${k}`, `req.headers${k}`, `request.headers${k}`, `env${k}`);
  }
  return paths;
}

export interface CreateLoggerOptions {
  /** Service name, on every line as `service`. */
  service: string;
  level?: LevelWithSilent;
  /** Fixed fields for every line (instance id, version). */
  bindings?: Record<string, string | number>;
  /** Where lines go; stdout by default (tests pass a stream to read them back). */
  destination?: DestinationStream;
}

/**
 * Structured JSON logs: one line per event with `level` (label), `time` (ISO), `service`, `msg`, the active span's
 * `trace_id`/`span_id` when tracing is on, and whatever the caller binds (`logger.child({ requestId })`,
 * `{ taskId }`). API keys, authorization headers and webhook secrets are replaced by `[redacted]` wherever they appear
 * at the usual places (top level, one level down, under `headers`).
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service, ...options.bindings },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactPaths(), censor: '[redacted]' },
      mixin() {
        const ids = activeTraceIds();
        return ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
