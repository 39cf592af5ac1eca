import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Module, UseFilters, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  CrawlActiveRequestDto,
  CrawlGetRequestDto,
  CrawlLookupRequestDto,
  CrawlStartRequestDto,
  MapSiteRequestDto,
  LlmTokensRecordRequestDto,
  LlmTokensUsageRequestDto,
  llmTokensPeriodOf,
  type LlmTokensRecordReply,
  type LlmTokensUsage,
  SERVICE_NAMES,
  SUBJECT_ROWS,
  SUBJECTS,
  TaskLookupRequestDto,
  type ActiveCrawlsResult,
  type CrawlErrorsResult,
  type CrawlStartReply,
  type CrawlStatusReply,
  type MapSiteReply,
  type ServiceName,
  type KeyQueueJobs,
  type TaskRecord,
  type TaskSubmitReply,
  type TaskSubmitRequest,
} from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions, ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { freePort, startProcess, waitForPort, type RunningProcess } from '@trawl/testing';
import { renderManifests } from '../src/lib/manifests.renderer.js';
import { envSuffix, natsAuthConfig } from '../src/lib/network-security.builder.js';
import { findRepoRoot } from '../src/lib/repo-root.util.js';
import { loadValues } from '../src/lib/trawl-values.reader.js';

/**
 * Issue 20, "must show" 1: the NATS permissions rendered for every topology allow each service exactly the subjects
 * its rows of the subject table (SUBJECT_TABLE in libs/contracts) say it serves, calls and publishes; and, loaded into
 * a real nats-server, they let each row's callers reach its server and refuse everyone else. The expectations here
 * are read off the rows, not off the renderer's own derivation.
 */
const root = findRepoRoot(import.meta.dirname);
const K8S = join(root, 'deploy', 'k8s');
/** Every values file of the deploy: the default (values.yaml) and each overlay on it. */
const TOPOLOGIES = ['values.yaml', ...readdirSync(K8S).filter((f) => /^values-.+\.yaml$/.test(f))];
const INFRASTRUCTURE = /^(_INBOX_[a-z-]+\.|\$JS\.)/;

interface UserPermissions {
  publish: string[];
  subscribe: string[];
  allowResponses: boolean;
}

/** The users of a rendered `authorization` block, by name. */
function usersOf(authConf: string): Map<string, UserPermissions> {
  const users = new Map<string, UserPermissions>();
  for (const block of authConf.split(/\n {4}\{\n/).slice(1)) {
    const name = /user: "([^"]+)"/.exec(block)?.[1];
    const publish = /publish: \{ allow: (\[[^\]]*\]) \}/.exec(block)?.[1];
    const subscribe = /subscribe: \{ allow: (\[[^\]]*\]) \}/.exec(block)?.[1];
    if (!name || !publish || !subscribe) throw new Error(`unreadable user block: ${block}`);
    users.set(name, {
      publish: JSON.parse(publish) as string[],
      subscribe: JSON.parse(subscribe) as string[],
      allowResponses: block.includes('allow_responses: true'),
    });
  }
  return users;
}

/**
 * What the rows say `service` publishes (requests it calls, events and notices it publishes), subscribes to (what it
 * serves, the notices it hears) and answers (what it serves).
 */
function rowsOf(service: ServiceName): { publish: string[]; subscribe: string[]; answers: boolean } {
  const publish: string[] = [];
  const subscribe: string[] = [];
  let answers = false;
  for (const row of SUBJECT_ROWS) {
    if (row.kind === 'rpc') {
      if (row.callers.includes(service)) publish.push(row.subject);
      if (row.servedBy === service) {
        subscribe.push(row.subject);
        answers = true;
      }
    } else {
      if (row.publishers.includes(service)) publish.push(row.subject);
      if (row.kind === 'broadcast' && row.subscribers.includes(service)) subscribe.push(row.subject);
    }
  }
  return { publish: publish.sort(), subscribe: subscribe.sort(), answers };
}

const subjectsIn = (list: string[]) => list.filter((s) => !INFRASTRUCTURE.test(s)).sort();

describe('the rendered NATS permissions of every topology, against the subject table', () => {
  it('covers every values file of the deploy', () => {
    expect(TOPOLOGIES).toEqual(expect.arrayContaining(['values.yaml', 'values-production.yaml', 'values-dev.yaml']));
  });

  it.each(TOPOLOGIES)('%s: each service may publish and subscribe to exactly the subjects of its rows', (file) => {
    const values = loadValues(root, file === 'values.yaml' ? [] : [join(K8S, file)]);
    const authMap = renderManifests(values).find(
      (o) => o.kind === 'ConfigMap' && o.metadata?.name === `${values.release}-nats-auth`,
    );
    if (!values.auth.nats) {
      // No per-service users in this topology (development): nothing to render, nothing refused.
      expect(authMap).toBeUndefined();
      return;
    }
    const conf = (authMap as { data?: Record<string, string> } | undefined)?.data?.['auth.conf'] ?? '';
    const users = usersOf(conf);
    expect([...users.keys()].sort()).toEqual([...SERVICE_NAMES].sort());
    for (const service of SERVICE_NAMES) {
      const user = users.get(service);
      const expected = rowsOf(service);
      expect({ service, publish: subjectsIn(user?.publish ?? []) }).toEqual({ service, publish: expected.publish });
      expect({ service, subscribe: subjectsIn(user?.subscribe ?? []) }).toEqual({
        service,
        subscribe: expected.subscribe,
      });
      // A service that serves requests may answer them; one that serves none may not publish anywhere else.
      expect({ service, answers: user?.allowResponses }).toEqual({ service, answers: expected.answers });
    }
  });

  it('lets the gateway cancel a task and task-service serve the cancel (the catalog once lacked task.cancel.v1)', () => {
    const users = usersOf(natsAuthConfig(loadValues(root)));
    expect(users.get('gateway')?.publish).toContain(SUBJECTS.taskCancel);
    expect(users.get('task-service')?.subscribe).toContain(SUBJECTS.taskCancel);
  });
});

/** A stand-in for task-service's handlers: the real decorator and start-up check, a record for any known id. */
@Controller()
@UseFilters(WireErrorFilter)
class TaskServiceStandIn {
  @ServesSubject(SUBJECTS.taskSubmit)
  submit(@Payload() _req: TaskSubmitRequest): TaskSubmitReply {
    return { jobs: [] };
  }

  @ServesSubject(SUBJECTS.taskGet)
  get(@Payload() req: TaskLookupRequestDto): TaskRecord {
    return record(req.jobId, 'waiting');
  }

  @ServesSubject(SUBJECTS.taskCancel)
  cancel(@Payload() req: TaskLookupRequestDto): TaskRecord {
    return record(req.jobId, 'failed');
  }

  @ServesSubject(SUBJECTS.taskQueue)
  queue(): KeyQueueJobs {
    return { outstanding: 0, running: 0, waiting: 0, max: 1, lastSuccessAt: null };
  }

  @ServesSubject(SUBJECTS.crawlStart)
  crawlStart(@Payload() _req: CrawlStartRequestDto): CrawlStartReply {
    return { id: '0'.repeat(32) };
  }

  @ServesSubject(SUBJECTS.crawlGet)
  crawlGet(@Payload() req: CrawlGetRequestDto): CrawlStatusReply {
    return crawlStatus(req.id);
  }

  @ServesSubject(SUBJECTS.crawlCancel)
  crawlCancel(@Payload() req: CrawlLookupRequestDto): CrawlStatusReply {
    return crawlStatus(req.id);
  }

  @ServesSubject(SUBJECTS.crawlErrors)
  crawlErrors(@Payload() _req: CrawlLookupRequestDto): CrawlErrorsResult {
    return { errors: [], robotsBlocked: [] };
  }

  @ServesSubject(SUBJECTS.crawlActive)
  crawlActive(@Payload() _req: CrawlActiveRequestDto): ActiveCrawlsResult {
    return { crawls: [] };
  }

  @ServesSubject(SUBJECTS.mapSite)
  mapSite(@Payload() _req: MapSiteRequestDto): MapSiteReply {
    return { links: [] };
  }

  @ServesSubject(SUBJECTS.tokensUsage)
  tokensUsage(@Payload() _req: LlmTokensUsageRequestDto): LlmTokensUsage {
    const current = {
      ...llmTokensPeriodOf(new Date()),
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      calls: 0,
      estimatedCalls: 0,
    };
    return { budget: 0, remaining: null, current, periods: [current] };
  }

  @ServesSubject(SUBJECTS.tokensRecord)
  tokensRecord(@Payload() req: LlmTokensRecordRequestDto): LlmTokensRecordReply {
    return { totalTokens: req.totalTokens };
  }
}

function crawlStatus(id: string): CrawlStatusReply {
  return { id, status: 'cancelled', total: 0, completed: 0, documents: 0, data: [], cursor: null };
}

function record(taskId: string, status: TaskRecord['status']): TaskRecord {
  return {
    taskId,
    status,
    params: {},
    data: null,
    error: null,
    progress: 0,
    attemptsMade: 0,
    finishedOn: null,
    processedOn: null,
    stacktrace: [],
  };
}

@Module({ controllers: [TaskServiceStandIn] })
class TaskServiceStandInModule {}

describe('the shipped NATS permissions (deploy/nats/auth.conf), in a real nats-server, row by row', () => {
  const password = (name: string): string => `pw-${name}`;
  let dir = '';
  let server: RunningProcess;
  let url = '';
  const open: NatsConnection[] = [];
  const as = async (user: string): Promise<NatsConnection> => {
    const nc = await connectNats([url], `test-${user}`, { user, pass: password(user) });
    open.push(nc);
    return nc;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-nats-rows-'));
    writeFileSync(join(dir, 'auth.conf'), natsAuthConfig(loadValues(root)));
    const port = await freePort();
    writeFileSync(join(dir, 'nats.conf'), `listen: 127.0.0.1:${port}\ninclude ./auth.conf\n`);
    const env = Object.fromEntries(SERVICE_NAMES.map((s) => [`NATS_PASSWORD_${envSuffix(s)}`, password(s)]));
    server = startProcess('nats-server', ['-c', join(dir, 'nats.conf')], {
      env: { PATH: process.env.PATH ?? '/usr/bin', ...env },
    });
    await waitForPort(port, '127.0.0.1', 20_000, server);
    url = `nats://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close()));
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets each request row’s callers reach its server, and refuses every other service, though a responder is there', async () => {
    for (const row of SUBJECT_ROWS) {
      if (row.kind !== 'rpc') continue;
      const served = await as(row.servedBy);
      const sub = served.subscribe(row.subject, { queue: row.servedBy, callback: (_e, m) => void m.respond('ok') });
      await served.flush();
      const outcomes = await Promise.all(
        SERVICE_NAMES.filter((s) => s !== row.servedBy).map(async (caller) => {
          const nc = await as(caller);
          const answered = await nc
            .request(row.subject, 'x', { timeout: 2000 })
            .then((m) => m.string() === 'ok')
            .catch(() => false);
          return [caller, answered] as const;
        }),
      );
      const reached = outcomes.filter(([, ok]) => ok).map(([caller]) => caller);
      expect({ subject: row.subject, reached: reached.sort() }).toEqual({
        subject: row.subject,
        reached: [...row.callers].sort(),
      });
      sub.unsubscribe();
    }
  }, 120_000);

  it('lets each broadcast row’s publishers reach every one of its subscribers, and no other service send or hear it', async () => {
    for (const row of SUBJECT_ROWS) {
      if (row.kind !== 'broadcast') continue;
      for (const listener of SERVICE_NAMES) {
        const nc = await as(listener);
        const heard: string[] = [];
        // A subscription the user may not make is refused by the server: it hears nothing.
        const sub = nc.subscribe(row.subject, { callback: (e, m) => void (e ? undefined : heard.push(m.string())) });
        await nc.flush();
        for (const publisher of SERVICE_NAMES) {
          const pc = await as(publisher);
          pc.publish(row.subject, publisher);
          await pc.flush();
        }
        await nc.flush();
        expect({ subject: row.subject, listener, heard: heard.sort() }).toEqual({
          subject: row.subject,
          listener,
          heard: row.subscribers.includes(listener) ? [...row.publishers].sort() : [],
        });
        sub.unsubscribe();
      }
    }
  }, 120_000);

  it('carries DELETE /extractTask/{jobId}: the gateway’s cancel reaches task-service’s handler and gets its record', async () => {
    const app: INestMicroservice = await NestFactory.createMicroservice(TaskServiceStandInModule, {
      ...natsServerOptions([url], 'task-service', {
        gracePeriodMs: 10,
        auth: { user: 'task-service', pass: password('task-service') },
      }),
      logger: false,
    });
    await app.listen();
    try {
      const gateway = new MessagingClient(await as('gateway'));
      const cancelled = await gateway.send(
        SUBJECTS.taskCancel,
        { jobId: 'scrape_1', apiKeyId: 'k1' },
        { timeoutMs: 5000, rideOutMs: 0 },
      );
      expect(cancelled).toMatchObject({ taskId: 'scrape_1', status: 'failed' });
      // The payload is checked against the row's DTO on the way in.
      await expect(
        gateway.send(SUBJECTS.taskCancel, { jobId: 'a b' }, { timeoutMs: 5000, rideOutMs: 0 }),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', field: 'jobId' });
    } finally {
      await app.close();
    }
  });
});
