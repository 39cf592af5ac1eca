import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisClient, standaloneRedisTopology, type RedisClient } from '@trawl/redis';
import { startRedis, type TestServer } from '@trawl/testing';
import { LlmTokenStore, LLM_TOKENS_RETENTION_SEC, llmTokensKey } from './llm-token.store.js';

const spend = (prompt: number, completion: number, estimated = false) => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  estimated,
});

describe('LlmTokenStore (real Redis)', () => {
  let server: TestServer;
  let a: RedisClient;
  let b: RedisClient;
  /** The clock of the stores: mid-November 2026, UTC. */
  let now = Date.parse('2026-11-15T12:00:00.000Z');

  beforeAll(async () => {
    server = await startRedis({ persist: false });
    const topology = standaloneRedisTopology(server.url);
    a = createRedisClient(topology, { name: 'token-store-spec-a', role: 'command' });
    b = createRedisClient(topology, { name: 'token-store-spec-b', role: 'command' });
  });

  afterAll(async () => {
    a?.disconnect();
    b?.disconnect();
    await server?.stop();
  });

  const store = (client: RedisClient, budget: number) =>
    new LlmTokenStore(client, { budgetPerKeyPerMonth: budget, now: () => now });

  it('adds each call to its key and month, exactly, from replicas recording at once', async () => {
    const replicas = [store(a, 0), store(b, 0)];
    await Promise.all(Array.from({ length: 50 }, (_, i) => replicas[i % 2].record('key-a', spend(100, 7, i === 0))));
    await replicas[0].record('key-b', spend(1, 1));
    const usage = await replicas[1].usage('key-a');
    expect(usage.current).toEqual({
      period: '2026-11',
      startDate: '2026-11-01T00:00:00.000Z',
      endDate: '2026-11-30T23:59:59.999Z',
      promptTokens: 5000,
      completionTokens: 350,
      totalTokens: 5350,
      calls: 50,
      estimatedCalls: 1,
    });
    expect(usage).toMatchObject({ budget: 0, remaining: null });
    expect((await replicas[0].usage('key-b')).current.totalTokens).toBe(2);
    const ttl = await a.ttl(llmTokensKey('key-a', '2026-11'));
    expect(ttl).toBeGreaterThan(LLM_TOKENS_RETENTION_SEC - 60);
  });

  it('answers what is left of the budget, never below 0, and starts afresh with the next calendar month', async () => {
    const capped = store(a, 1000);
    expect(await capped.usage('key-c')).toMatchObject({ budget: 1000, remaining: 1000 });
    expect(await capped.record('key-c', spend(600, 100))).toEqual({ totalTokens: 700 });
    expect((await capped.usage('key-c')).remaining).toBe(300);
    // The call admitted with 300 left overruns the budget by its answer: recorded in full, nothing left.
    expect(await capped.record('key-c', spend(500, 50))).toEqual({ totalTokens: 1250 });
    expect((await capped.usage('key-c')).remaining).toBe(0);

    now = Date.parse('2026-12-01T00:00:00.000Z');
    const december = await capped.usage('key-c', 3);
    expect(december.remaining).toBe(1000);
    expect(december.current).toMatchObject({ period: '2026-12', totalTokens: 0, calls: 0 });
    // History: the current month, then the earlier months with any use (October had none).
    expect(december.periods.map((p) => [p.period, p.totalTokens])).toEqual([
      ['2026-12', 0],
      ['2026-11', 1250],
    ]);
  });

  it('a month boundary in January reaches back into the previous year', async () => {
    now = Date.parse('2027-01-31T23:59:59.999Z');
    const usage = await store(a, 0).usage('key-c', 3);
    expect(usage.current).toMatchObject({ period: '2027-01', endDate: '2027-01-31T23:59:59.999Z' });
    expect(usage.periods.map((p) => p.period)).toEqual(['2027-01', '2026-11']);
  });
});
