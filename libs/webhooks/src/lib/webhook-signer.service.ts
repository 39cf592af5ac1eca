import { createHmac } from 'node:crypto';

/** Headers of a signed delivery (Standard Webhooks). */
export interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Standard Webhooks signing: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with
 * the bytes of the secret after `whsec_` (base64). A receiver verifies it with any Standard Webhooks library.
 */
export class WebhookSigner {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new Error('the signing secret must be whsec_<base64>');
    this.key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    if (this.key.length < 24) throw new Error('the signing secret must hold at least 24 bytes');
  }

  sign(id: string, timestampSeconds: number, body: string): WebhookSignatureHeaders {
    const signature = createHmac('sha256', this.key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
    return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
  }
}
