import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Prefix of a value sealed by SecretCipher (format version 1: AES-256-GCM). */
export const SEALED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Whether a stored value is sealed (as opposed to a record written in clear before encryption at rest). */
export function isSealed(value: string): boolean {
  return value.startsWith(SEALED_PREFIX);
}

/**
 * Encrypts secrets for storage (webhook signing secrets in the key store) with AES-256-GCM under a 32-byte key from
 * configuration (`KEYS_ENCRYPTION_KEY`, base64). A sealed value is `enc:v1:` + base64url(iv(12) ‖ tag(16) ‖
 * ciphertext); `aad` (the record's id) binds it to its record, so a sealed secret copied into another record does not
 * open. Opening a value that is not sealed returns it as it is: records written before encryption stay readable, and
 * are sealed the next time they are written (or by `npm run keys -- encrypt-secrets`).
 */
export class SecretCipher {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    const key = Buffer.from(keyBase64, 'base64');
    if (!/^[A-Za-z0-9+/]{43}=?$/.test(keyBase64) || key.length !== 32) {
      throw new Error('the encryption key must be base64 of exactly 32 bytes (openssl rand -base64 32)');
    }
    this.key = key;
  }

  seal(plain: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The clear text of `stored`; throws when a sealed value does not open (wrong key, other record, tampered). */
  open(stored: string, aad: string): string {
    if (!isSealed(stored)) return stored;
    const raw = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('a sealed secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch (cause) {
      throw new Error('a sealed secret does not open with KEYS_ENCRYPTION_KEY (wrong key, or the record was altered)', {
        cause,
      });
    }
  }
}
