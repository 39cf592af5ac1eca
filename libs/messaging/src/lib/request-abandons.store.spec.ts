import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Controller,
  Module,
  UseFilters,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type INestMicroservice,
  type NestInterceptor,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { SUBJECTS, subjectsServedBy, TrawlError, type ScrapePageRequestDto, type ScrapeResult } from '@trawl/contracts';
import { eventually, startNats, type TestServer } from '@trawl/testing';
import type { DrainingNatsServer } from './draining-nats.server.js';
import { MessagingClient } from './messaging.client.js';
import { connectNats } from './nats-connection.factory.js';
import { natsServerOptions } from './nats-server.options.js';
import { currentAbandonSignal, RequestAbandons, withAbandonSignal } from './request-abandons.store.js';
import { WireErrorFilter } from './wire-error.filter.js';

/** What each scrape handler saw: its URL, and the reason its abandon signal aborted with (undefined: it was not). */
const seen = new Map<string, { signal: boolean; reason?: unknown }>();

/**
 * A pass-through interceptor, as the services' trace interceptor: with one, Nest's handleMessage returns as soon as the
 * handler's reply stream is set up, long before the handler ends (a request must stay abandonable until its reply).
 */
class PassThrough implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
}

/**
 * extractor-scrape's subjects (so the server is that service's and hears `extract.abandon.v1`): a scrape holds until
 * its abandon signal aborts, or answers after 15 s; the others are not asked here.
 */
@Controller()
@UseFilters(WireErrorFilter)
@UseInterceptors(PassThrough)
class AbandonableController {
  @MessagePattern(SUBJECTS.scrapePage)
  async scrape(@Payload() req: ScrapePageRequestDto): Promise<ScrapeResult> {
    const signal = currentAbandonSignal();
    const entry: { signal: boolean; reason?: unknown } = { signal: signal !== undefined };
    seen.set(req.url, entry);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 15_000).unref();
      signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    entry.reason = signal?.aborted ? signal.reason : undefined;
    signal?.throwIfAborted();
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

  @MessagePattern(SUBJECTS.renderPage)
  render(): never {
    throw new TrawlError('INTERNAL', 'not asked here');
  }

  @MessagePattern(SUBJECTS.crawlPlan)
  plan(): never {
    throw new TrawlError('INTERNAL', 'not asked here');
  }

  @MessagePattern(SUBJECTS.crawlPlanReady)
  ready(): never {
    throw new TrawlError('INTERNAL', 'not asked here');
  }
}

@Module({ controllers: [AbandonableController] })
class AbandonableModule {}

describe('abandoned requests (ADR 0043), through a real nats-server', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let app: INestMicroservice;
  let server: DrainingNatsServer;
  /** task-service's client: it may publish the abandon notice. */
  let tasks: MessagingClient;

  beforeAll(async () => {
    expect(subjectsServedBy('extractor-scrape').sort()).toEqual(
      [SUBJECTS.scrapePage, SUBJECTS.renderPage, SUBJECTS.crawlPlan, SUBJECTS.crawlPlanReady].sort(),
    );
    nats = await startNats();
    nc = await connectNats([nats.url], 'abandon-test-client');
    tasks = new MessagingClient(nc, undefined, { caller: 'task-service' });
    const options = natsServerOptions([nats.url], 'extractor-scrape', { gracePeriodMs: 100 });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AbandonableModule, { ...options, logger: false });
    await app.listen();
    server = (options as { strategy: DrainingNatsServer }).strategy;
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.stop();
  });

  const scrape = (url: string, abandon?: AbortSignal) =>
    tasks.send(
      SUBJECTS.scrapePage,
      { url, formats: ['markdown'], timeout: 30_000 },
      { timeoutMs: 20_000, ...(abandon ? { abandon } : {}) },
    );

  it('stops the handler of the request its caller abandons, and only that one', async () => {
    const mine = new AbortController();
    const other = new AbortController();
    const abandoned = scrape('http://a.test/abandoned', mine.signal).catch((e: unknown) => e);
    const kept = scrape('http://a.test/kept', other.signal);
    await eventually(() => seen.has('http://a.test/abandoned') && seen.has('http://a.test/kept'));
    expect(server.abandons.size).toBe(2);

    mine.abort(new TrawlError('TASK_CANCELLED', 'task scrape_1 was cancelled'));
    // The handler's signal aborted with the extractor's own reason; the caller's send ends with its own reason.
    await eventually(() => seen.get('http://a.test/abandoned')?.reason !== undefined);
    expect(seen.get('http://a.test/abandoned')).toMatchObject({ signal: true, reason: { code: 'TASK_CANCELLED' } });
    expect(await abandoned).toMatchObject({ code: 'TASK_CANCELLED' });
    expect(server.abandoned).toBe(1);
    // The other request runs on, its handler's signal untouched.
    expect(seen.get('http://a.test/kept')?.reason).toBeUndefined();
    expect(server.abandons.size).toBe(1);
    other.abort(new TrawlError('TASK_CANCELLED', 'task scrape_2 was cancelled'));
    await expect(kept).rejects.toMatchObject({ code: 'TASK_CANCELLED' });
    await eventually(() => server.abandons.size === 0);
    expect(server.abandoned).toBe(2);
  }, 30_000);

  it('gives a request sent without a signal none, and sends nothing for a signal aborted before the send', async () => {
    const plain = scrape('http://a.test/plain');
    await eventually(() => seen.has('http://a.test/plain'));
    expect(seen.get('http://a.test/plain')?.signal).toBe(false);
    const early = new AbortController();
    early.abort(new TrawlError('TASK_CANCELLED', 'cancelled before it was sent'));
    await expect(scrape('http://a.test/early', early.signal)).rejects.toMatchObject({ code: 'TASK_CANCELLED' });
    expect(seen.has('http://a.test/early')).toBe(false);
    // The plain one is left to answer in its own time; the test does not wait for it.
    plain.catch(() => undefined);
  }, 30_000);

  it('lets the gateway abandon too (a synchronous scrape whose HTTP client hung up)', async () => {
    const gateway = new MessagingClient(nc, undefined, { caller: 'gateway' });
    const hungUp = new AbortController();
    const sent = gateway
      .send(
        SUBJECTS.scrapePage,
        { url: 'http://a.test/gw', formats: ['markdown'], timeout: 30_000 },
        { timeoutMs: 20_000, abandon: hungUp.signal },
      )
      .catch((e: unknown) => e);
    await eventually(() => seen.has('http://a.test/gw'));
    hungUp.abort(new TrawlError('TASK_CANCELLED', 'the client closed the connection'));
    await eventually(() => seen.get('http://a.test/gw')?.reason !== undefined);
    expect(await sent).toMatchObject({ code: 'TASK_CANCELLED' });
  });
});

describe('RequestAbandons', () => {
  it('aborts only the request held under the key named, and forgets each once released', async () => {
    const abandons = new RequestAbandons();
    const a = abandons.hold('a');
    const b = abandons.hold('b');
    const seenInside = await withAbandonSignal(a.signal, async () => {
      await Promise.resolve();
      return currentAbandonSignal();
    });
    expect(seenInside).toBe(a.signal);
    expect(currentAbandonSignal()).toBeUndefined();
    expect(abandons.size).toBe(2);
    expect(abandons.abandon('nobody', new Error('x'))).toBe(false);
    expect(abandons.abandon('a', new Error('gone'))).toBe(true);
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(false);
    expect(abandons.abandon('a', new Error('again'))).toBe(false);
    b.release();
    b.release();
    a.release();
    expect(abandons.size).toBe(0);
    expect(abandons.abandon('b', new Error('too late'))).toBe(false);
    expect(b.signal.aborted).toBe(false);
  });
});
