import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { bootstrapKeyId } from './key-material.util.js';
import { SEALED_PREFIX, SecretCipher } from './secret-cipher.service.js';
import { deriveWebhookSecret } from './webhook-secret.util.js';

const MASTER = `whsec_${Buffer.from('the-operators-master-signing-secret').toString('base64')}`;

describe('deriveWebhookSecret (bootstrap keys sign with their own secret)', () => {
  const a = bootstrapKeyId('tenant-a-key');
  const b = bootstrapKeyId('tenant-b-key');

  it('gives each key id its own whsec_ secret, the same every time, and none equal to the master', () => {
    const sa = deriveWebhookSecret(MASTER, a);
    const sb = deriveWebhookSecret(MASTER, b);
    expect(sa).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(sa).not.toBe(sb);
    expect(sa).not.toBe(MASTER);
    expect(deriveWebhookSecret(MASTER, a)).toBe(sa);
    expect(deriveWebhookSecret(`whsec_${randomBytes(32).toString('base64')}`, a)).not.toBe(sa);
  });

  it('is the documented HMAC-SHA256(master bytes, key id)', async () => {
    const { createHmac } = await import('node:crypto');
    const expected = createHmac('sha256', Buffer.from(MASTER.slice(6), 'base64'))
      .update(a)
      .digest('base64');
    expect(deriveWebhookSecret(MASTER, a)).toBe(`whsec_${expected}`);
  });

  it("B-signed webhooks verify with B's secret and not with A's (standardwebhooks)", () => {
    const body = JSON.stringify({ taskId: 't1', status: 'completed' });
    const headers = new Webhook(deriveWebhookSecret(MASTER, b)).sign('msg_1', new Date(), body);
    const signed = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': headers,
    };
    expect(new Webhook(deriveWebhookSecret(MASTER, b)).verify(body, signed)).toEqual(JSON.parse(body));
    expect(() => new Webhook(deriveWebhookSecret(MASTER, a)).verify(body, signed)).toThrow();
    expect(() => new Webhook(MASTER).verify(body, signed)).toThrow();
  });

  it('refuses a master that is not whsec_ of at least 24 bytes', () => {
    expect(() => deriveWebhookSecret('not-a-secret', a)).toThrow(/whsec_/);
    expect(() => deriveWebhookSecret(`whsec_${Buffer.from('short').toString('base64')}`, a)).toThrow(/24 bytes/);
  });
});

describe('SecretCipher', () => {
  const cipher = new SecretCipher(randomBytes(32).toString('base64'));

  it('seals to enc:v1: with a fresh IV each time and opens back', () => {
    const one = cipher.seal('whsec_abc', 'key_1');
    const two = cipher.seal('whsec_abc', 'key_1');
    expect(one).toMatch(/^enc:v1:/);
    expect(one).not.toBe(two);
    expect(cipher.open(one, 'key_1')).toBe('whsec_abc');
  });

  it('passes a value stored in clear through unchanged', () => {
    expect(cipher.open('whsec_written-before', 'key_1')).toBe('whsec_written-before');
  });

  it("refuses a tampered value, another record's value and a wrong key", () => {
    const sealed = cipher.seal('whsec_abc', 'key_1');
    // One bit flipped in the nonce, in the tag and in the ciphertext (enc:v1: + base64url(iv(12) ‖ tag(16) ‖ body)):
    // flipping bytes, not characters, always changes the value (a character swap can land on the same character).
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url');
    for (const at of [0, 12, raw.length - 1]) {
      const bytes = Buffer.from(raw);
      bytes[at] = bytes[at]! ^ 0x01;
      const tampered = SEALED_PREFIX + bytes.toString('base64url');
      expect(tampered).not.toBe(sealed);
      expect(() => cipher.open(tampered, 'key_1')).toThrow(/does not open/);
    }
    expect(() => cipher.open(sealed, 'key_2')).toThrow(/does not open/);
    expect(() => new SecretCipher(randomBytes(32).toString('base64')).open(sealed, 'key_1')).toThrow(/does not open/);
    expect(() => cipher.open('enc:v1:AAAA', 'key_1')).toThrow(/truncated/);
  });

  it('accepts only base64 of exactly 32 bytes as the key', () => {
    expect(() => new SecretCipher('')).toThrow(/32 bytes/);
    expect(() => new SecretCipher(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => new SecretCipher('!'.repeat(44))).toThrow(/32 bytes/);
  });
});
