import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorMapsEnv, loadEnv } from '@trawl/config';
import { QUEUE_GROUPS, SUBJECTS, TrawlError } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startBuiltSimulator, startNats, type TestServer } from '@trawl/testing';
import { guardedFetch } from '@trawl/upstream';
import { AppModule } from '../src/app.module.js';

describe('extractor-maps (in-process, real NATS, upstream simulator)', () => {
  let nats: TestServer;
  let sim: { url: string; stop(): Promise<void> };
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  beforeAll(async () => {
    [nats, sim] = await Promise.all([startNats(), startBuiltSimulator()]);
    const env = loadEnv(ExtractorMapsEnv, {
      NATS_URL: nats.url,
      MAPS_BASE_URL: sim.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(
      AppModule.forRoot(env, guardedFetch(env.SSRF_ALLOW_HOSTS)),
      {
        ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorMaps, { gracePeriodMs: 10 }),
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

  const search = (q: string, extra: Record<string, number | string> = {}) =>
    client.send(
      SUBJECTS.searchMaps,
      { q, ll: '40.71,-74.00,14z', hl: 'en', timeout: 10_000, ...extra },
      { timeoutMs: 10_000 },
    );

  it.each(['coffee in new york', 'dentist', 'bike repair shop'])(
    'answers a maps search for "%s" with populated places',
    async (q) => {
      const res = await search(q);
      expect(res).toMatchObject({ status: 'completed', stacktrace: null });
      expect(res.taskId).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(res.finishedOn)).toBeGreaterThanOrEqual(Date.parse(res.processedOn));
      expect(res.totalResults).toBe(20);
      expect(res.data.searchParameters).toMatchObject({ q, hl: 'en', zoom: '14', latitude: 40.71, longitude: -74 });
      const place = res.data.organicResults[0];
      expect(place.name.length).toBeGreaterThan(0);
      expect(place.place_id).toMatch(/^ChIJ/);
      expect(place.address.length).toBeGreaterThan(0);
      expect(place.rating).toBeGreaterThan(0);
      expect(place.mp_hours.length).toBe(7);
    },
  );

  it('fetches further pages for a num beyond one page, without duplicates', async () => {
    const res = await search('pizza', { num: 45, start: 5 });
    expect(res.totalResults).toBe(45);
    expect(new Set(res.data.organicResults.map((p) => p.place_id)).size).toBe(45);
  });

  it('extracts a place URL (type mp-maps) and a maps search URL (type mp-search), re-pointed at the simulator', async () => {
    const listed = (await search('bakery')).data.organicResults[0];
    const place = await client.send(
      SUBJECTS.extractPlace,
      { url: `https://www.google.com/maps/place/?q=place_id:${listed.place_id}`, timeout: 10_000 },
      { timeoutMs: 10_000 },
    );
    expect(place).toMatchObject({ mp_place_id: listed.place_id, mp_company_name: listed.name });
    expect(place.mp_phone).toBeTruthy();
    const data = await client.send(
      SUBJECTS.extractMapsSearchUrl,
      { url: 'https://www.google.com/maps/search/tea+room/@51.50,-0.12,13z', timeout: 10_000 },
      { timeoutMs: 10_000 },
    );
    expect(data.searchParameters.q).toBe('tea room');
    expect(data.organicResults.length).toBe(20);
  });

  it('answers UPSTREAM_BLOCKED (retryable) when the upstream blocks with a captcha', async () => {
    const err = await search('captcha test').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect(err).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryable: true });
  });

  it('rejects an invalid payload with VALIDATION_FAILED naming the field', async () => {
    const err = await client
      .send(SUBJECTS.extractPlace, { url: 'not a url', timeout: 10_000 }, { timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', field: 'url' });
  });

  it('refuses a URL that is not a Google Maps URL for mp-maps and mp-search with VALIDATION_FAILED (ADR 0020)', async () => {
    for (const subject of [SUBJECTS.extractPlace, SUBJECTS.extractMapsSearchUrl] as const) {
      const err = await client
        .send(subject, { url: 'https://shop.example/maps/place/x', timeout: 10_000 }, { timeoutMs: 10_000 })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'VALIDATION_FAILED', field: 'url' });
    }
  });
});
