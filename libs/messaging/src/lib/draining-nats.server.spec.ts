import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { SUBJECTS, TrawlError, type ScrapeRequestDto, type ScrapeResult } from '@trawl/contracts';
import { eventually, startNats, type TestServer } from '@trawl/testing';
import { DrainingNatsServer, servedSubjectsProblem } from './draining-nats.server.js';
import { FleetUnavailableError, MessagingClient } from './messaging.client.js';
import { connectNats } from './nats-connection.factory.js';
import { natsServerOptions } from './nats-server.options.js';

/** A handler that holds each request until the test opens the gate. */
const gate = { entered: 0, open: (): void => undefined, opened: Promise.resolve() };
function closeGate(): void {
  gate.entered = 0;
  gate.opened = new Promise<void>((resolve) => (gate.open = resolve));
}

@Controller()
class HeldController {
  @MessagePattern(SUBJECTS.scrapePage)
  async scrape(@Payload() req: ScrapeRequestDto): Promise<ScrapeResult> {
    gate.entered += 1;
    await gate.opened;
    return {
      sourceURL: req.url,
      taskId: 't',
      edgeId: 'e',
      status: 200,
      rawStatus: 200,
      markdown: 'done',
      metadata: { title: 'x', url: req.url, engine: 'http', contentType: null },
    };
  }
}

@Module({ controllers: [HeldController] })
class HeldModule {}

describe('DrainingNatsServer (real nats-server)', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let client: MessagingClient;

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'draining-test-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  async function startServer(
    gracePeriodMs: number,
    maxInFlight?: number,
  ): Promise<{ app: INestMicroservice; server: DrainingNatsServer }> {
    const options = natsServerOptions([nats.url], 'draining-test', {
      gracePeriodMs,
      ...(maxInFlight !== undefined ? { maxInFlight } : {}),
    });
    const app = await NestFactory.createMicroservice<MicroserviceOptions>(HeldModule, { ...options, logger: false });
    await app.listen();
    return { app, server: (options as { strategy: DrainingNatsServer }).strategy };
  }

  /** A scrape request; `rideOutMs: 0` answers "no responders" at once instead of riding it out. */
  const scrape = (url: string, rideOutMs?: number) =>
    client.send(
      SUBJECTS.scrapePage,
      { url, formats: ['markdown'], timeout: 30_000 },
      { timeoutMs: 20_000, ...(rideOutMs === undefined ? {} : { rideOutMs }) },
    );

  it('on close takes no new request but lets the ones being handled reply before the connection closes', async () => {
    closeGate();
    const { app, server } = await startServer(600_000);
    const held = [scrape('http://a.test/1'), scrape('http://a.test/2')];
    await eventually(() => gate.entered === 2);
    expect(server.requestsInFlight).toBe(2);

    let closed = false;
    const closing = app.close().then(() => (closed = true));
    // Drained: a new request finds no responder (in production it goes to another replica).
    await eventually(() => !server.acceptingRequests);
    const refused = await scrape('http://a.test/late', 0).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TrawlError);
    expect((refused as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
    // Give a close that did not wait time to finish (it would, in a few ms), then check it is still waiting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(closed).toBe(false);

    gate.open();
    const replies = await Promise.all(held);
    expect(replies.map((r) => r.markdown)).toEqual(['done', 'done']);
    await closing;
    expect(server.requestsInFlight).toBe(0);
  });

  it('loses no request that reaches it while it closes: each is answered or refused, none times out', async () => {
    closeGate();
    gate.open();
    const { app } = await startServer(600_000);
    const probe = (i: number) =>
      client
        .send(
          SUBJECTS.scrapePage,
          { url: `http://a.test/${i}`, formats: ['markdown'], timeout: 30_000 },
          { timeoutMs: 3_000, rideOutMs: 0 },
        )
        .then(
          (r) => r.markdown,
          (e: unknown) => (e instanceof TrawlError ? e.code : String(e)),
        );
    // Requests keep arriving before, during and after close(); a dropped one would end in UPSTREAM_TIMEOUT.
    const outcomes: Promise<string | undefined>[] = [];
    let closing = false;
    const stream = (async () => {
      for (let i = 0; i < 400 && (!closing || outcomes.length < 40); i += 1) {
        outcomes.push(probe(i));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await eventually(() => outcomes.length >= 20);
    closing = true;
    await app.close();
    await stream;
    const seen = new Set(await Promise.all(outcomes));
    expect([...seen].filter((o) => o !== 'done' && o !== 'SERVICE_UNAVAILABLE')).toEqual([]);
    expect(seen.has('done')).toBe(true);
  });

  it('answers a request it could not finish within its grace period at once, as a replica gone, not at the deadline', async () => {
    closeGate();
    const { app, server } = await startServer(50);
    // A deadline far past the test's own timeout: only the replica's answer can settle this request in time.
    const held = client
      .send(
        SUBJECTS.scrapePage,
        { url: 'http://a.test/held', formats: ['markdown'], timeout: 30_000 },
        { timeoutMs: 600_000, rideOutMs: 0 },
      )
      .catch((e: unknown) => e);
    await eventually(() => gate.entered === 1);
    await app.close(); // the handler is still waiting at the gate when the grace period runs out
    const err = await held;
    expect(err).toBeInstanceOf(FleetUnavailableError);
    expect((err as FleetUnavailableError).reason).toBe('shut_down');
    expect((err as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
    expect(server.requestsInFlight).toBe(1);
    // The handler finishing afterwards publishes nothing on the closed connection.
    gate.open();
    await eventually(() => server.requestsInFlight === 0);
  });

  it('past its in-flight cap a replica refuses at once, and the caller gets the request to a replica with room', async () => {
    closeGate();
    const x = await startServer(600_000, 1);
    const y = await startServer(600_000, 1);
    try {
      const first = scrape('http://a.test/first');
      await eventually(() => gate.entered === 1);
      // Whichever replica the queue group hands it to first, the second request ends at the one with room.
      const second = scrape('http://a.test/second');
      await eventually(() => gate.entered === 2);
      // Both replicas are full: a third is refused by each it meets, never run, and fails as busy within its deadline.
      const third = await client
        .send(
          SUBJECTS.scrapePage,
          { url: 'http://a.test/third', formats: ['markdown'], timeout: 30_000 },
          { timeoutMs: 1_500, rideOutMs: 0 },
        )
        .catch((e: unknown) => e);
      expect(third).toBeInstanceOf(FleetUnavailableError);
      expect((third as FleetUnavailableError).reason).toBe('busy');
      expect((third as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
      expect(gate.entered).toBe(2);
      expect(x.server.refusedBusy + y.server.refusedBusy).toBeGreaterThan(0);
      gate.open();
      expect((await Promise.all([first, second])).map((r) => r.markdown)).toEqual(['done', 'done']);
      // Their places are free again.
      expect((await scrape('http://a.test/after')).markdown).toBe('done');
    } finally {
      gate.open();
      await x.app.close();
      await y.app.close();
    }
  });

  it('closes an idle server at once instead of sleeping out its grace period', async () => {
    closeGate();
    gate.open();
    const { app } = await startServer(600_000); // ten minutes: only the drain can end close() within the test
    expect((await scrape('http://a.test/quick')).markdown).toBe('done');
    await app.close();
  });
});

describe('servedSubjectsProblem: a service serves exactly its rows of the subject table', () => {
  it('accepts a service whose handlers are its rows, in any order, and a test queue that is no service', () => {
    expect(
      servedSubjectsProblem('extractor-maps', ['extract.place.v1', 'extract.maps.v1', 'extract.maps-url.v1']),
    ).toBeUndefined();
    expect(servedSubjectsProblem('draining-test', ['anything'])).toBeUndefined();
  });

  it('names a row without a handler and a handler without a row', () => {
    expect(servedSubjectsProblem('task-service', ['task.submit.v1', 'task.get.v1'])).toMatch(
      /no handler for task\.cancel\.v1/,
    );
    expect(servedSubjectsProblem('extractor-retail', ['extract.retail.v1', 'extract.search.v1'])).toMatch(
      /handlers for subjects it does not serve: extract\.search\.v1/,
    );
  });
});
