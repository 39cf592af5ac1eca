import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QUEUES } from '@trawl/contracts';
import { startStack, type Stack } from './support/stack.js';

const ADMIN = 'admin-key-0123456789';

/**
 * Issue 9: the queue dashboard (Bull Board) is task-service's, on its ops server (METRICS_PORT) behind the admin key,
 * read-only; the gateway no longer touches BullMQ and does not serve it. Real processes, Redis and NATS.
 */
describe('queue dashboard on task-service (processes, real Redis and NATS)', () => {
  let stack: Stack;
  const board = (path: string) => `http://127.0.0.1:${stack.metricsPorts.get('task-service')}/admin/queues${path}`;

  beforeAll(async () => {
    stack = await startStack(['gateway', 'task-service'], { ADMIN_API_KEY: ADMIN });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('asks for the admin key, and lists every queue, read-only, with it', async () => {
    const refused = await fetch(board('/api/queues'));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm="trawl-admin"/);
    expect((await fetch(board('/api/queues'), { headers: { 'x-admin-key': 'wrong-key-0123456789' } })).status).toBe(
      401,
    );

    const res = await fetch(board('/api/queues'), { headers: { 'x-admin-key': ADMIN } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual(Object.values(QUEUES).sort());
    expect(body.queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it('serves the dashboard page to a browser with the key as the basic-auth password', async () => {
    const auth = `Basic ${Buffer.from(`ops:${ADMIN}`).toString('base64')}`;
    const res = await fetch(board(''), { headers: { authorization: auth } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('refuses to change a queue while read-only', async () => {
    const res = await fetch(board(`/api/queues/${QUEUES.scrape}/clean/waiting`), {
      method: 'PUT',
      headers: { 'x-admin-key': ADMIN },
    });
    // Bull Board's own refusal of a read-only queue (405 with its error key), not any error: a 401 (key lost), 404
    // (route gone) or 500 would each mean something else is wrong.
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ error: { key: 'ERRORS.QUEUE_READ_ONLY' } });
  });

  it('is no longer on the gateway', async () => {
    const gateway = `http://127.0.0.1:${stack.metricsPorts.get('gateway')}/admin/queues`;
    expect((await fetch(gateway, { headers: { 'x-admin-key': ADMIN } })).status).toBe(404);
  });
});
