import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { WebhookSigner } from './webhook-signer.service.js';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

describe('WebhookSigner', () => {
  const body = JSON.stringify({ event: 'task.completed', taskId: 'scrape_1' });
  const now = Math.floor(Date.now() / 1000);

  it('signs so that a Standard Webhooks receiver (the standardwebhooks library) verifies the delivery', () => {
    const headers = new WebhookSigner(SECRET).sign('evt-1', now, body);
    expect(headers['webhook-id']).toBe('evt-1');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(SECRET).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('produces a signature the receiver rejects when the body was changed', () => {
    const headers = new WebhookSigner(SECRET).sign('evt-1', now, body);
    expect(() => new Webhook(SECRET).verify(body.replace('completed', 'failed'), { ...headers })).toThrow();
  });

  it('refuses a secret that is not whsec_ base64 of at least 24 bytes', () => {
    expect(() => new WebhookSigner('not-a-secret')).toThrow();
    expect(() => new WebhookSigner(`whsec_${Buffer.from('short').toString('base64')}`)).toThrow();
  });
});
