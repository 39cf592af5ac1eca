import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { STREAMS, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { eventually, startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { callApi, SIGNING_SECRET, startStack, type ServiceName, type Stack } from './support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const TASKS = 500;
const CONCURRENCY = 8;
/** Each page is answered after this long, so the batch runs for several seconds around the two kills. */
const PAGE_DELAY_MS = 200;
/**
 * The pages of the last tasks (from this index on) are held until the Redis master is lost: both losses then come
 * mid-batch, with tasks in flight and tasks waiting, however fast the cluster recovers from the first.
 */
const HELD_FROM = 400;
const SERVICES: ServiceName[] = ['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape'];

/**
 * Must-show 1 of the lost-node issue: the whole system (every service a process) on a 3-node NATS JetStream cluster
 * and Redis as a master with 2 replicas watched by 3 Sentinels. The services get every NATS node in NATS_URL and the
 * Sentinels in REDIS_SENTINELS. Mid-batch, the NATS node leading the outcome stream is SIGKILLed, then the Redis
 * master; neither comes back and no service is restarted. Every task ends completed with one outcome (one webhook-id),
 * stored once in the stream.
 */
describe('a lost NATS node and a lost Redis master mid-batch (3-node JetStream cluster, Sentinel group, processes)', () => {
  let site: LoopbackServer;
  let receiver: WebhookReceiver;
  let stack: Stack;

  let releaseHeldPages!: () => void;
  const heldPages = new Promise<void>((resolve) => (releaseHeldPages = resolve));

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      const index = Number(/\/failover\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      await (index >= HELD_FROM ? heldPages : new Promise((r) => setTimeout(r, PAGE_DELAY_MS)));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>${req.url}</title></head><body><h1>${req.url}</h1></body></html>`);
    });
    receiver = await startWebhookReceiver(SIGNING_SECRET);
    stack = await startStack(
      SERVICES,
      {
        SSRF_ALLOW_HOSTS: '127.0.0.1',
        TASK_SCRAPE_ENGINE: 'http',
        TASK_CONCURRENCY_SCRAPE: String(CONCURRENCY),
        WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,1s,2s,2s,5s,5s,5s,5s',
        WEBHOOK_RETRY_JITTER: '0',
        // Outcomes whose publish did not get through are found by the sweep; in production every 30 s.
        TASK_OUTCOME_SWEEP_INTERVAL_MS: '2000',
      },
      { natsNodes: 3, redisSentinel: { replicas: 2, sentinels: 3 } },
    );
  }, 180_000);

  afterAll(async () => {
    releaseHeldPages();
    await stack?.stop();
    await Promise.all([site?.close(), receiver?.close()]);
  });

  /** How many of `ids` GET /extractTask/{id} answers in each status (`http <code>` when it answers no task). */
  async function statesOf(ids: string[]): Promise<Record<string, number>> {
    const states: Record<string, number> = {};
    for (const id of ids) {
      const lookup = await callApi(stack, 'GET', `/extractTask/${encodeURIComponent(id)}`).catch(() => undefined);
      const status = lookup?.status === 200 ? String(lookup.body.data.status) : `http ${lookup?.status ?? 'error'}`;
      states[status] = (states[status] ?? 0) + 1;
    }
    return states;
  }

  function logs(): string {
    return [...stack.services.entries()].map(([n, p]) => `--- ${n}\n${p.output().slice(-3000)}`).join('\n');
  }

  it(`completes all ${TASKS} tasks of a URL batch, 0 lost and 0 duplicates, when the outcome stream's NATS leader and then the Redis master are SIGKILLed for good`, async () => {
    const cluster = stack.natsCluster!;
    const redis = stack.redisGroup!;
    const processes = new Map(stack.services);
    const urls = Array.from({ length: TASKS }, (_, i) => `${site.url}/failover/${i}`);
    const res = await callApi(stack, 'POST', '/extractTask/batch', {
      urls,
      webhook: `${receiver.url}/failover`,
      type: 'scrape',
      // Long enough for a held page (held from the NATS loss to the Redis one).
      timeout: 60_000,
    });
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.map((j: { id: string }) => j.id);
    expect(ids).toHaveLength(TASKS);
    const idSet = new Set(ids);
    const delivered = () =>
      new Set(receiver.deliveries.filter((d) => d.status < 300 && idSet.has(d.body?.taskId)).map((d) => d.body.taskId))
        .size;

    // The outcome stream is replicated across the cluster.
    const nc = await connectNats(cluster.urls(), 'failover-e2e');
    try {
      const jsm = await jetstreamManager(nc);
      expect((await jsm.streams.info(STREAMS.taskOutcomes.name)).config.num_replicas).toBe(3);

      await eventually(() => delivered() >= TASKS / 5, 120_000, 20);
      const leader = await cluster.streamLeader(STREAMS.taskOutcomes.name);
      await cluster.kill(leader.name);
      const deliveredAtNatsKill = delivered();

      await eventually(() => delivered() >= deliveredAtNatsKill + TASKS / 5, 120_000, 20).catch((e: unknown) => {
        throw new Error(`outcomes stopped after the NATS leader was lost: ${String(e)}\n${logs()}`);
      });
      const { old, promoted } = await redis.killMaster();
      expect(promoted.address).not.toBe(old.address);
      const deliveredAtRedisKill = delivered();
      releaseHeldPages();
      // Both losses came mid-batch: the held tasks at least were unfinished.
      expect(deliveredAtNatsKill).toBeLessThanOrEqual(HELD_FROM);
      expect(deliveredAtRedisKill).toBeLessThanOrEqual(HELD_FROM);

      const outcomes = await receiver.outcomesOf(ids, 240_000, 2000).catch(async (e: unknown) => {
        const missing = ids.filter((id) => !receiver.deliveriesOf(id).some((d) => d.status < 300));
        throw new Error(
          `${String(e)}\noutcomes when the NATS leader was killed: ${deliveredAtNatsKill}, when the Redis master was: ` +
            `${deliveredAtRedisKill}; the tasks without one, by status: ${JSON.stringify(await statesOf(missing))}\n${logs()}`,
        );
      });
      for (const [i, deliveries] of outcomes.entries()) {
        const accepted = deliveries.filter((d) => d.status < 300);
        expect(accepted.every((d) => d.verified)).toBe(true);
        // One outcome per task: a repeated delivery carries the same webhook-id.
        expect(new Set(deliveries.map((d) => d.id)).size).toBe(1);
        expect(accepted[0].body).toMatchObject({ event: 'task.completed', taskId: ids[i], status: 'completed' });
      }
      // The stream holds exactly one outcome per task (no second outcome after the failovers).
      const stored = new Map<string, number>();
      const { state } = await jsm.streams.info(STREAMS.taskOutcomes.name);
      for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
        const m = await jsm.streams.getMessage(STREAMS.taskOutcomes.name, { seq }).catch(() => null);
        const taskId = m?.json<TaskFinishedEvent>().task.taskId;
        if (taskId && idSet.has(taskId)) stored.set(taskId, (stored.get(taskId) ?? 0) + 1);
      }
      expect(stored.size).toBe(TASKS);
      expect([...stored.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await nc.close();
    }

    // Every task reads completed; 0 lost.
    expect(await statesOf(ids)).toEqual({ completed: TASKS });
    // No service was restarted: the processes started at the beginning are the ones still running.
    for (const [name, proc] of processes) {
      expect({ name, exitCode: proc.child.exitCode, signal: proc.child.signalCode }).toEqual({
        name,
        exitCode: null,
        signal: null,
      });
      expect(stack.services.get(name)).toBe(proc);
    }
  }, 600_000);
});
