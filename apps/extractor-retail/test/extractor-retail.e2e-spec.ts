import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorRetailEnv, loadEnv } from '@trawl/config';
import { QUEUE_GROUPS, SUBJECTS, TrawlError } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startBuiltSimulator, startNats, type TestServer } from '@trawl/testing';
import { guardedFetch } from '@trawl/upstream';
import { AppModule } from '../src/app.module.js';

describe('extractor-retail (in-process, real NATS, upstream simulator)', () => {
  let nats: TestServer;
  let sim: { url: string; stop(): Promise<void> };
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  beforeAll(async () => {
    [nats, sim] = await Promise.all([startNats(), startBuiltSimulator()]);
    const env = loadEnv(ExtractorRetailEnv, {
      NATS_URL: nats.url,
      RETAIL_BASE_URL: sim.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(
      AppModule.forRoot(env, guardedFetch(env.SSRF_ALLOW_HOSTS)),
      {
        ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorRetail, { gracePeriodMs: 10 }),
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

  const extract = (url: string) => client.send(SUBJECTS.extractRetail, { url, timeout: 10_000 }, { timeoutMs: 10_000 });

  it.each([
    'https://www.amazon.com/dp/B0TEST0001',
    'https://www.amazon.ae/Some-Kitchen-Scale/dp/B08CZDYNF7?th=1',
    'https://www.amazon.com/gp/product/B09V366BDY',
  ])('extracts a populated product record from %s (re-pointed at the simulator)', async (url) => {
    const rec = await extract(url);
    expect(rec.asin).toBe(/([A-Z0-9]{10})/.exec(url.split('/').slice(-1)[0].split('?')[0])?.[1]);
    expect(rec.url).toBe(url);
    expect(rec.title.length).toBeGreaterThan(5);
    expect(rec.price?.value).toBeGreaterThan(0);
    expect(rec.rating).toBeGreaterThan(0);
    expect(rec.images.length).toBeGreaterThan(0);
    expect(rec.features.length).toBeGreaterThan(0);
  });

  it('fetches a URL already on the simulator as given', async () => {
    const rec = await extract(`${sim.url}/dp/B0TEST0002`);
    expect(rec.asin).toBe('B0TEST0002');
  });

  it('answers UPSTREAM_BLOCKED (retryable) when the store answers with its robot check', async () => {
    const err = await extract('https://www.amazon.com/dp/CAPTCHA001').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect(err).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryable: true });
  });

  it('refuses a private address with URL_NOT_ALLOWED (the SSRF guard applies)', async () => {
    const err = await extract('http://10.0.0.7/dp/B0TEST0003').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'URL_NOT_ALLOWED' });
  });
});
