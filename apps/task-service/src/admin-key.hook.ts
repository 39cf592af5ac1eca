import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A Fastify onRequest hook that lets a request through only with the admin key: in the `x-admin-key` header, or as
 * the password of HTTP basic auth (any user name), so a browser can open the dashboard. Otherwise 401 with a
 * `WWW-Authenticate: Basic` challenge. Compared as SHA-256 digests in constant time.
 */
export function adminKeyHook(adminKey: string): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  if (!adminKey) throw new Error('adminKeyHook needs a non-empty admin key');
  const expected = sha256(adminKey);
  return async (request, reply) => {
    const given = presentedKey(request);
    if (given !== null && timingSafeEqual(sha256(given), expected)) return;
    await reply
      .status(401)
      .header('www-authenticate', 'Basic realm="trawl-admin", charset="UTF-8"')
      .header('content-type', 'application/json; charset=utf-8')
      .send({ message: 'admin key required (x-admin-key header, or basic auth with the key as password)' });
  };
}

function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers['x-admin-key'];
  if (typeof header === 'string' && header) return header;
  const auth = request.headers.authorization;
  if (typeof auth === 'string' && /^basic /i.test(auth)) {
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : null;
  }
  return null;
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
