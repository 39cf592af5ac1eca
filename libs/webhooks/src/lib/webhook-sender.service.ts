import { Agent, request } from 'undici';
import { TrawlError, type OutcomeEvent } from '@trawl/contracts';
import { injectTraceHeaders } from '@trawl/telemetry';
import { firecrawlWebhookBody } from './firecrawl-webhook-body.mapper.js';
import { parseRetryAfter } from './retry-schedule.policy.js';
import { WebhookSigner } from './webhook-signer.service.js';
import type { WebhookUrlGuard } from './webhook-url.guard.js';

/** What one delivery attempt came to. */
export type DeliveryResult =
  | { outcome: 'delivered'; status: number }
  /** 410 Gone: the receiver wants no more deliveries to this URL. */
  | { outcome: 'gone'; status: number }
  /** The URL may not be called (SSRF guard): retrying will not help. */
  | { outcome: 'refused'; reason: string }
  | { outcome: 'retry'; status: number | null; reason: string; retryAfterMs?: number }
  /**
   * Not sent: its signing secret could not be read (the key store unreachable, e.g. during a Redis failover). Nothing
   * was asked of the receiver, so it is neither an attempt nor the receiver's failure.
   */
  | { outcome: 'unavailable'; reason: string };

/** The signing secret of an outcome: by the API key that submitted the task (`whsec_...`). */
export type WebhookSecretResolver = (apiKeyId: string | undefined) => Promise<string>;

export interface WebhookSenderOptions {
  /** Deadline of one attempt, ms. */
  timeoutMs: number;
  userAgent?: string;
}

/**
 * The JSON body of a delivery: the task record (or a crawl's or URL batch's state, ADR 0026) with the event name; a
 * crawl or batch event asked for in Firecrawl's form as Firecrawl's object (ADR 0028).
 */
export function webhookBody(event: OutcomeEvent): string {
  if ('task' in event) return JSON.stringify({ event: event.event, ...event.task });
  if (event.form === 'firecrawl') return JSON.stringify(firecrawlWebhookBody(event));
  if ('batch' in event) return JSON.stringify({ event: event.event, ...event.batch });
  return JSON.stringify({ event: event.event, ...event.crawl });
}

/** Headers a crawl's own webhook headers may not set: the request's framing and what Trawl signs and says. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'user-agent',
  'traceparent',
  'tracestate',
]);

/** The headers the event's crawl asked to be sent with it, without the reserved ones and the signature's. */
export function customHeadersOf(event: OutcomeEvent): Record<string, string> {
  if ('task' in event || !event.headers) return {};
  return Object.fromEntries(
    Object.entries(event.headers).filter(([name]) => {
      const lower = name.toLowerCase();
      return !RESERVED_HEADERS.has(lower) && !lower.startsWith('webhook-');
    }),
  );
}

/**
 * POSTs an outcome to its webhook, signed (Standard Webhooks; `webhook-id` is the outcome's event id, the same on every
 * attempt). Redirects are not followed. The SSRF guard runs before the request and again at connect time.
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly signers = new Map<string, WebhookSigner>();

  constructor(
    private readonly guard: WebhookUrlGuard,
    private readonly secretFor: WebhookSecretResolver,
    private readonly options: WebhookSenderOptions,
  ) {
    this.agent = new Agent({
      connect: { lookup: guard.lookup, timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 10_000,
    });
  }

  async deliver(event: OutcomeEvent, now = Date.now()): Promise<DeliveryResult> {
    const webhook = event.webhook;
    if (webhook === undefined) return { outcome: 'refused', reason: 'the task has no webhook' };
    try {
      await this.guard.check(webhook);
    } catch (e) {
      if (isRefusal(e)) return { outcome: 'refused', reason: (e as Error).message };
      return { outcome: 'retry', status: null, reason: e instanceof Error ? e.message : String(e) };
    }
    const body = webhookBody(event);
    let signer: WebhookSigner;
    try {
      signer = await this.signerFor(event.apiKeyId);
    } catch (e) {
      return {
        outcome: 'unavailable',
        reason: `signing secret unavailable: ${e instanceof Error ? e.message : String(e)}`,
      };
    }
    try {
      const signed = signer.sign(event.eventId, Math.floor(now / 1000), body);
      const res = await request(webhook, {
        method: 'POST',
        body,
        headers: {
          ...customHeadersOf(event),
          'content-type': 'application/json',
          'user-agent': this.options.userAgent ?? 'Trawl-Webhooks/1',
          // W3C trace context of the delivery (nothing with tracing off); not part of what is signed.
          ...injectTraceHeaders(),
          ...signed,
        },
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await res.body.dump().catch(() => undefined);
      if (res.statusCode >= 200 && res.statusCode < 300) return { outcome: 'delivered', status: res.statusCode };
      if (res.statusCode === 410) return { outcome: 'gone', status: res.statusCode };
      const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
      return {
        outcome: 'retry',
        status: res.statusCode,
        reason: `the receiver answered ${res.statusCode}`,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (isRefusal(err) || isRefusal(err.cause)) return { outcome: 'refused', reason: err.message };
      return {
        outcome: 'retry',
        status: null,
        reason: `delivery failed: ${err.name === 'TimeoutError' ? 'timed out' : err.message}`,
      };
    }
  }

  private async signerFor(apiKeyId: string | undefined): Promise<WebhookSigner> {
    const secret = await this.secretFor(apiKeyId);
    let signer = this.signers.get(secret);
    if (!signer) {
      signer = new WebhookSigner(secret);
      if (this.signers.size > 10_000) this.signers.clear();
      this.signers.set(secret, signer);
    }
    return signer;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The SSRF guard's refusal (at check or connect time): retrying will not help. */
function isRefusal(e: unknown): boolean {
  return e instanceof TrawlError && e.code === 'URL_NOT_ALLOWED';
}
