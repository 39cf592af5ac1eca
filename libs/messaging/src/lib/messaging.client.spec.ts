import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Module, UseFilters } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { SUBJECTS, TrawlError, type ScrapeRequestDto, type ScrapeResult } from '@trawl/contracts';
import { startNats, type TestServer } from '@trawl/testing';
import { FleetUnavailableError, MessagingClient, responseJsonOf } from './messaging.client.js';
import { connectNats } from './nats-connection.factory.js';
import { natsServerOptions } from './nats-server.options.js';
import { WireErrorFilter } from './wire-error.filter.js';

@Controller()
@UseFilters(WireErrorFilter)
class EchoController {
  @MessagePattern(SUBJECTS.scrapePage)
  async scrape(@Payload() req: ScrapeRequestDto): Promise<ScrapeResult> {
    if (req.url.includes('blocked')) throw new TrawlError('UPSTREAM_BLOCKED', 'the site blocked us');
    if (req.url.includes('crash')) throw new Error('secret internals');
    if (req.url.includes('slow')) await new Promise((r) => setTimeout(r, 800));
    return {
      sourceURL: req.url,
      taskId: 't1',
      edgeId: 'e1',
      status: 200,
      rawStatus: 200,
      markdown: `# ${req.url}`,
      metadata: { title: 'x', url: req.url, engine: 'http', contentType: null },
    };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

describe('MessagingClient against a Nest NATS server (real nats-server)', () => {
  let nats: TestServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  beforeAll(async () => {
    nats = await startNats();
    app = await NestFactory.createMicroservice<MicroserviceOptions>(EchoModule, {
      ...natsServerOptions([nats.url], 'test-queue', { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    nc = await connectNats([nats.url], 'test-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await nats?.stop();
  });

  const req = (url: string) => ({ url, formats: ['markdown' as const], timeout: 1000 });

  it('returns the typed reply of the subject', async () => {
    const reply = await client.send(SUBJECTS.scrapePage, req('http://a.test/'), { timeoutMs: 2000 });
    expect(reply.markdown).toBe('# http://a.test/');
  });

  it('refuses, before sending, a subject whose row does not list the calling service; sends one that does', async () => {
    const scrape = new MessagingClient(nc, undefined, { caller: 'extractor-scrape' });
    await expect(scrape.send(SUBJECTS.scrapePage, req('http://a.test/'), { timeoutMs: 2000 })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/extractor-scrape may not call scrape\.page\.v1/),
    });
    await expect(scrape.probe(SUBJECTS.scrapePage)).rejects.toMatchObject({ code: 'INTERNAL' });
    const gateway = new MessagingClient(nc, undefined, { caller: 'gateway' });
    expect((await gateway.send(SUBJECTS.scrapePage, req('http://a.test/'), { timeoutMs: 2000 })).markdown).toBe(
      '# http://a.test/',
    );
  });

  it('turns a WireError reply into a TrawlError with the same code', async () => {
    await expect(
      client.send(SUBJECTS.scrapePage, req('http://blocked.test/'), { timeoutMs: 2000 }),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_BLOCKED',
      retryable: true,
    });
  });

  it('answers an unexpected exception as INTERNAL without leaking its message', async () => {
    const err = await client
      .send(SUBJECTS.scrapePage, req('http://crash.test/'), { timeoutMs: 2000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('INTERNAL');
    expect((err as TrawlError).message).not.toContain('secret');
  });

  it('reports SERVICE_UNAVAILABLE naming the service when nothing serves the subject within the deadline', async () => {
    const err = await client.send(SUBJECTS.taskGet, { jobId: '1' }, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FleetUnavailableError);
    expect((err as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
    expect((err as TrawlError).message).toContain('task-service');
    expect((err as FleetUnavailableError).reason).toBe('no_responders');
  });

  it('rides out "no responders" within its deadline: a responder that appears later answers the request', async () => {
    const sent: number[] = [];
    const observed = new MessagingClient(nc, (_s, outcome) => sent.push(outcome === 'ok' ? 1 : 0));
    const late = await connectNats([nats.url], 'late-responder');
    try {
      const reply = observed.send(SUBJECTS.taskGet, { jobId: 'late' }, { timeoutMs: 5000 });
      // Nothing serves task.get.v1 yet: the first sends meet "no responders".
      await new Promise((r) => setTimeout(r, 300));
      late.subscribe(SUBJECTS.taskGet, {
        callback: (_e, msg) => {
          const { id } = JSON.parse(new TextDecoder().decode(msg.data)) as { id: string };
          msg.respond(JSON.stringify({ response: { taskId: 'late' }, isDisposed: true, id }));
        },
      });
      await late.flush();
      await expect(reply).resolves.toEqual({ taskId: 'late' });
      expect(sent).toEqual([1]);
    } finally {
      // The next tests need task.get.v1 served by nothing. `unsubscribe()` then `close()` only writes the UNSUB to
      // the socket: the NATS server may still route the next request (sent on another connection) to this
      // subscription, where it is lost and waits out its deadline. A drain returns once the server has confirmed
      // the UNSUB (a PING/PONG round trip after it), so from then on the subject has no responders.
      await late.drain();
    }
  });

  it('answers SERVICE_UNAVAILABLE at once with rideOutMs 0, however long the deadline', async () => {
    const err = await client
      .send(SUBJECTS.taskGet, { jobId: '1' }, { timeoutMs: 60_000, rideOutMs: 0 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FleetUnavailableError);
    expect((err as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
  });

  it('probe tells whether anything serves a subject', async () => {
    await expect(client.probe(SUBJECTS.taskGet)).resolves.toBe(false);
    await expect(client.probe(SUBJECTS.scrapePage)).resolves.toBe(true);
  });

  it('sendRaw answers the reply as JSON text, the same value send answers', async () => {
    const text = await client.sendRaw(SUBJECTS.scrapePage, req('http://raw.test/'), { timeoutMs: 2000 });
    const reply = await client.send(SUBJECTS.scrapePage, req('http://raw.test/'), { timeoutMs: 2000 });
    expect(JSON.parse(text)).toEqual(reply);
  });

  it("responseJsonOf cuts the response out of the Nest server's own reply text, and refuses its error replies", async () => {
    const ask = async (url: string, id: string) => {
      const packet = JSON.stringify({ pattern: SUBJECTS.scrapePage, data: req(url), id });
      return new TextDecoder().decode((await nc.request(SUBJECTS.scrapePage, packet, { timeout: 2000 })).data);
    };
    const ok = await ask('http://raw.test/"quoted"', 'id-1');
    const cut = responseJsonOf(ok, 'id-1');
    expect(cut).toBeDefined();
    expect(JSON.parse(cut as string)).toEqual((JSON.parse(ok) as { response: unknown }).response);
    expect(responseJsonOf(ok, 'id-2')).toBeUndefined(); // another request's reply
    const failed = await ask('http://blocked.test/', 'id-3');
    expect((JSON.parse(failed) as { err?: unknown }).err).toBeDefined();
    expect(responseJsonOf(failed, 'id-3')).toBeUndefined();
    expect(responseJsonOf('{"isDisposed":true,"id":"id-4"}', 'id-4')).toBeUndefined();
  });

  it('sendRaw turns a WireError reply into a TrawlError, as send does', async () => {
    await expect(
      client.sendRaw(SUBJECTS.scrapePage, req('http://blocked.test/'), { timeoutMs: 2000 }),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_BLOCKED',
    });
  });

  it('reports UPSTREAM_TIMEOUT when the deadline passes', async () => {
    const err = await client
      .send(SUBJECTS.scrapePage, req('http://slow.test/'), { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('UPSTREAM_TIMEOUT');
  });
});

describe('MessagingClient when the NATS connection is lost mid-request (real nats-server, restarted)', () => {
  it('answers a request whose reply was lost to the outage as FleetUnavailableError (disconnected), not UPSTREAM_TIMEOUT', async () => {
    const nats = await startNats();
    const nc = await connectNats([nats.url], 'outage-client');
    const silent = await connectNats([nats.url], 'silent-responder');
    // A responder that takes each request and never answers.
    silent.subscribe(SUBJECTS.taskGet, { callback: () => undefined });
    await silent.flush();
    const client = new MessagingClient(nc);
    try {
      // Control: with the link up all along, the same silence is the callee's: UPSTREAM_TIMEOUT.
      const slow = await client.send(SUBJECTS.taskGet, { jobId: 'x' }, { timeoutMs: 500 }).catch((e: unknown) => e);
      expect(slow).not.toBeInstanceOf(FleetUnavailableError);
      expect((slow as TrawlError).code).toBe('UPSTREAM_TIMEOUT');

      const lost = client.send(SUBJECTS.taskGet, { jobId: 'y' }, { timeoutMs: 3000 }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 200));
      await nats.restart(() => new Promise((r) => setTimeout(r, 300)));
      const err = await lost;
      expect(err).toBeInstanceOf(FleetUnavailableError);
      expect((err as FleetUnavailableError).reason).toBe('disconnected');
      expect((err as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await Promise.all([nc.close(), silent.close()]);
      await nats.stop();
    }
  }, 30_000);
});
