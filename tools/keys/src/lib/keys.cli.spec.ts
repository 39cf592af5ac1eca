import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiKeyStore, bootstrapKeyId, deriveWebhookSecret, digestKey } from '@trawl/keys';
import { startRedis, type TestServer } from '@trawl/testing';
import { Redis } from 'ioredis';
import { UsageError, runKeysCli } from './keys.cli.js';

describe('keys CLI (real Redis)', () => {
  let server: TestServer;
  let redis: Redis;
  let store: ApiKeyStore;

  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
    store = new ApiKeyStore(redis);
  });

  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  async function run(...argv: string[]): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    const code = await runKeysCli(argv, store, (l) => lines.push(l));
    return { code, lines };
  }

  const keyIn = (lines: string[]): string =>
    /(trawl_\S+)$/.exec(lines.find((l) => l.startsWith('API key')) ?? '')?.[1] ?? '';
  const idIn = (lines: string[]): string => /^Key (key_[0-9a-f]+)/.exec(lines[0])?.[1] ?? '';

  it('create prints the new key once with its secret, and stores it with the given limits', async () => {
    const { code, lines } = await run('create', '--name', 'acme', '--rate', '100/1m', '--concurrency', '3');
    expect(code).toBe(0);
    const key = keyIn(lines);
    expect(key).toMatch(/^trawl_/);
    expect(lines.join('\n')).toMatch(/Webhook signing secret: whsec_/);
    const record = await store.findByDigest(digestKey(key));
    expect(record).toMatchObject({
      id: idIn(lines),
      name: 'acme',
      limits: { rate: { points: 100, durationSec: 60 }, concurrency: 3 },
    });
  });

  it('create applies the default limits 600/60s and 20 in flight', async () => {
    const { lines } = await run('create', '--name', 'defaults');
    expect((await store.get(idIn(lines)))?.limits).toEqual({ rate: { points: 600, durationSec: 60 }, concurrency: 20 });
  });

  it('list shows ids, names, limits and status, never a key or a secret', async () => {
    const created = await run('create', '--name', 'listed', '--rate', '5/1s');
    const id = idIn(created.lines);
    await run('revoke', id);
    const { code, lines } = await run('list');
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+RATE\s+CONCURRENCY\s+STATUS\s+CREATED$/);
    const row = lines.find((l) => l.startsWith(id)) ?? '';
    expect(row).toMatch(/listed\s+5\/1s\s+20\s+revoked/);
    const text = lines.join('\n');
    expect(text).not.toContain(keyIn(created.lines));
    expect(text).not.toContain('whsec_');
  });

  it('rotate prints a new key that works while the old one stops', async () => {
    const created = await run('create', '--name', 'rotating');
    const { code, lines } = await run('rotate', idIn(created.lines));
    expect(code).toBe(0);
    expect(await store.findByDigest(digestKey(keyIn(created.lines)))).toBeNull();
    expect((await store.findByDigest(digestKey(keyIn(lines))))?.id).toBe(idIn(created.lines));
    expect(lines.join('\n')).not.toContain('whsec_');
    const withSecret = await run('rotate', idIn(created.lines), '--webhook-secret');
    expect(withSecret.lines.join('\n')).toMatch(/Webhook signing secret: whsec_/);
  });

  it('revoke stops the key', async () => {
    const created = await run('create', '--name', 'revoking');
    const { code, lines } = await run('revoke', idIn(created.lines));
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^Revoked key_/);
    expect(await store.findByDigest(digestKey(keyIn(created.lines)))).toBeNull();
  });

  it('refuses bad command lines with a usage error', async () => {
    await expect(run('create')).rejects.toThrow(UsageError);
    await expect(run('create', '--name', 'x', '--rate', '600')).rejects.toThrow(/600\/60s/);
    await expect(run('create', '--name', 'x', '--concurrency', '0')).rejects.toThrow(UsageError);
    await expect(run('rotate')).rejects.toThrow(UsageError);
    await expect(run('frobnicate')).rejects.toThrow(/unknown command/);
    await expect(run('list', '--bogus')).rejects.toThrow();
    expect((await run()).code).toBe(2);
  });

  it("create --outstanding stores the key's own cap of queued plus running jobs", async () => {
    const { lines } = await run('create', '--name', 'capped', '--outstanding', '500');
    expect(lines[0]).toMatch(/500 jobs outstanding/);
    expect((await store.findByDigest(digestKey(keyIn(lines))))?.limits.outstanding).toBe(500);
    await expect(run('create', '--name', 'x', '--outstanding', '0')).rejects.toThrow(UsageError);
  });

  it("bootstrap-secret prints a bootstrap key's id and its derived secret, reading the key on stdin", async () => {
    const master = `whsec_${Buffer.from('keys-cli-spec-master-secret-012345').toString('base64')}`;
    const lines: string[] = [];
    const code = await runKeysCli(['bootstrap-secret'], store, (l) => lines.push(l), {
      masterSecret: master,
      readStdin: async () => 'tenant-a-bootstrap-key\n',
    });
    expect(code).toBe(0);
    const id = bootstrapKeyId('tenant-a-bootstrap-key');
    expect(lines).toEqual([`Bootstrap key ${id}`, `Webhook signing secret: ${deriveWebhookSecret(master, id)}`]);
    await expect(
      runKeysCli(['bootstrap-secret'], store, () => undefined, { readStdin: async () => 'k' }),
    ).rejects.toThrow(/WEBHOOK_SIGNING_SECRET/);
    await expect(
      runKeysCli(['bootstrap-secret', 'the-key'], store, () => undefined, { masterSecret: master }),
    ).rejects.toThrow(/stdin/);
  });
});
