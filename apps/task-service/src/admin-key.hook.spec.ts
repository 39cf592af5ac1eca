import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { adminKeyHook } from './admin-key.hook.js';

const ADMIN = 'admin-key-0123456789';
const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('adminKeyHook', () => {
  let app: FastifyInstance;
  let base = '';
  // Over a real socket: Fastify's inject pulls in an ES-only dependency Jest cannot require on Node 20.
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { headers });
    return { statusCode: res.status, headers: Object.fromEntries(res.headers.entries()) };
  };

  beforeAll(async () => {
    app = Fastify();
    await app.register(
      async (scope) => {
        scope.addHook('onRequest', adminKeyHook(ADMIN));
        scope.get('/', async () => ({ ok: true }));
      },
      { prefix: '/admin/queues' },
    );
    app.get('/open', async () => ({ ok: true }));
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await app.close();
  });

  it('lets the admin key through in the x-admin-key header', async () => {
    const res = await get('/admin/queues/', { 'x-admin-key': ADMIN });
    expect(res.statusCode).toBe(200);
  });

  it('lets the admin key through as the basic-auth password, whatever the user name', async () => {
    const res = await get('/admin/queues/', { authorization: basic('ops', ADMIN) });
    expect(res.statusCode).toBe(200);
  });

  it('answers no key or a wrong one with 401 and a basic-auth challenge', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { 'x-admin-key': 'wrong' },
      { authorization: basic(ADMIN, 'wrong') },
      { authorization: 'Basic !!!' },
    ]) {
      const res = await get('/admin/queues/', headers);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="trawl-admin"/);
    }
  });

  it('guards only the routes it is added to', async () => {
    expect((await get('/open')).statusCode).toBe(200);
  });

  it('refuses to be built without a key', () => {
    expect(() => adminKeyHook('')).toThrow();
  });
});
