import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorSearchEnv, loadEnv } from '@trawl/config';
import { QUEUE_GROUPS, SUBJECTS, TrawlError, type WebSearchRequestDto } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startBuiltSimulator, startNats, type TestServer } from '@trawl/testing';
import { guardedFetch } from '@trawl/upstream';
import { AppModule } from '../src/app.module.js';

describe('extractor-search (in-process, real NATS, upstream simulator)', () => {
  let nats: TestServer;
  let sim: { url: string; stop(): Promise<void> };
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  beforeAll(async () => {
    [nats, sim] = await Promise.all([startNats(), startBuiltSimulator()]);
    const env = loadEnv(ExtractorSearchEnv, {
      NATS_URL: nats.url,
      SEARCH_BASE_URL: sim.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(
      AppModule.forRoot(env, guardedFetch(env.SSRF_ALLOW_HOSTS)),
      {
        ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorSearch, { gracePeriodMs: 10 }),
        logger: false,
      },
    );
    await app.listen();
    nc = await connectNats([nats.url], 'test-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await Promise.all([nats?.stop(), sim?.stop()]);
  });

  const search = (req: Partial<WebSearchRequestDto> & { q: string }) =>
    client.send(SUBJECTS.searchWeb, { timeout: 10_000, ...req }, { timeoutMs: 10_000 });

  it.each(['best hiking boots', 'how to bake sourdough bread', 'nats jetstream tutorial'])(
    'answers a web search for "%s" with populated results',
    async (q) => {
      const res = await search({ q, hl: 'en', gl: 'us' });
      expect(res.results).toHaveLength(10);
      expect(res.results.map((r) => r.realPosition)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const first = res.results[0];
      expect(first.title.length).toBeGreaterThan(0);
      expect(first.link).toMatch(/^https?:\/\//);
      expect(first.domain.length).toBeGreaterThan(0);
      expect(first.snippet.length).toBeGreaterThan(0);
      expect(res.peopleAlsoAsk.length).toBeGreaterThan(0);
      expect(res.relatedSearches.length).toBeGreaterThan(0);
      expect(res.location.htmlLang).toBe('en');
    },
  );

  it('meets a num beyond one page by fetching further pages, realPosition continuing from start', async () => {
    const res = await search({ q: 'garden tools', num: 25, start: 10 });
    expect(res.results).toHaveLength(25);
    expect(res.results.map((r) => r.realPosition)).toEqual(Array.from({ length: 25 }, (_, i) => 11 + i));
    expect(new Set(res.results.map((r) => r.link)).size).toBe(25);
  });

  it('answers UPSTREAM_BLOCKED (retryable) when the upstream answers with a captcha', async () => {
    const err = await search({ q: 'captcha please' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect(err).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryable: true });
  });

  it('rejects an invalid payload with VALIDATION_FAILED naming the field', async () => {
    const err = await search({ q: 'x', num: 0 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', field: 'num' });
  });
});
