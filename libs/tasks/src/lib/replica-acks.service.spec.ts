import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { eventually, startRedisSentinelGroup, type RedisSentinelGroup } from '@trawl/testing';
import { ReplicaAckError, ReplicaAcks } from './replica-acks.service.js';

describe('ReplicaAcks (a real master with one replica)', () => {
  let group: RedisSentinelGroup;
  let master: Redis;
  let replica: Redis;
  let acks: ReplicaAcks;

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 1, sentinels: 1 });
    const [m, r] = group.dataNodes;
    master = new Redis({ host: '127.0.0.1', port: m.port });
    replica = new Redis({ host: '127.0.0.1', port: r.port });
    // The replica's first sync is done (it waits for the master's snapshot, a few seconds).
    await eventually(async () => Number(await master.call('WAIT', 1, 200)) === 1, 30_000, 100);
    acks = new ReplicaAcks((name) => new Redis({ host: '127.0.0.1', port: m.port, connectionName: name }), {
      timeoutMs: 2000,
      expectReplicas: true,
    });
  }, 60_000);

  afterAll(async () => {
    await acks?.close();
    master?.disconnect();
    replica?.disconnect();
    await group?.stop();
  });

  it("confirms a job's end once the replica holds it", async () => {
    await master.hset('job:1', 'finishedOn', '1795420800123');
    expect(await acks.confirmFinished('acks', await acks.required(), 'job:1', 1795420800123)).toBe(true);
    expect(await replica.hget('job:1', 'finishedOn')).toBe('1795420800123');
  });

  it('does not vouch for an end the master does not hold: another end, or none (a master lost with it)', async () => {
    await master.hset('job:2', 'finishedOn', '1795420800123');
    expect(await acks.confirmFinished('acks', 1, 'job:2', 1795420800999)).toBe(false);
    await master.hset('job:3', 'processedOn', '1795420800000');
    expect(await acks.confirmFinished('acks', 1, 'job:3', 1795420800123)).toBe(false);
    expect(await acks.confirmFinished('acks', 1, 'job:absent', 1795420800123)).toBe(false);
  });

  it('throws a retryable ReplicaAckError when fewer replicas confirm than required', async () => {
    await master.hset('job:4', 'finishedOn', '1795420800123');
    const error = await acks.confirmFinished('acks', 2, 'job:4', 1795420800123).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplicaAckError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true, acked: 1, required: 2 });
  });

  it('asks nothing when no replica is required', async () => {
    expect(await acks.confirmFinished('acks', 0, 'job:absent', 1)).toBe(true);
  });
});
