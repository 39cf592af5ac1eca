import { Webhook } from 'standardwebhooks';
import type { WebhookPayload } from './api-types.generated.js';

/** Headers as Node's IncomingMessage, Fetch's Headers, or a plain record carry them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function header(headers: WebhookHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  const one = Array.isArray(value) ? value[0] : value;
  if (!one) throw new WebhookVerificationError(`missing ${name} header`);
  return one;
}

/**
 * Verifies a webhook delivery from Trawl (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`,
 * HMAC-SHA256 with the signing secret `whsec_...`; timestamps older or newer than 5 minutes are refused) and
 * returns its payload, typed. `rawBody` must be the body exactly as received, not re-serialised JSON.
 * Throws WebhookVerificationError when the signature does not match.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, rawBody: string | Buffer): WebhookPayload {
  const wanted = {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  };
  try {
    return new Webhook(secret).verify(rawBody, wanted) as WebhookPayload;
  } catch (e) {
    throw new WebhookVerificationError(e instanceof Error ? e.message : String(e));
  }
}
