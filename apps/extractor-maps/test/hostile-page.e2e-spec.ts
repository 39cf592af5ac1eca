// Issue 19 High 2 (ADR 0020): a crafted multi-MB maps page through mp-maps costs one parse-pool worker for its
// budget and answers PAGE_TOO_COMPLEX; a small extraction sent beside it answers first.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorMapsEnv, loadEnv } from '@trawl/config';
import { QUEUE_GROUPS, SUBJECTS } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { guardedFetch } from '@trawl/upstream';
import { AppModule } from '../src/app.module.js';

const SMALL = readFileSync(
  new URL('../../../libs/parsers/src/lib/maps/__fixtures__/place-rendered.html', import.meta.url),
  'utf8',
);
const CARD =
  '<div role="article" aria-label="x"><div role="feed"><a href="/maps/place/x/data=!3d1!4d2"><li><span>4.5</span>';
/**
 * A 9 MB maps place page of cards nested in one another (under the upstream page cap of 10 MB). The parsers are linear
 * on it (ADR 0020), so its size is its cost: seconds, many times the tight parse budget below.
 */
const HOSTILE = `<html><head><title>x - Google Maps</title></head><body><div role="main"><h1>x</h1>${CARD.repeat(
  Math.ceil((9 * 1024 * 1024) / CARD.length),
)}</div></body></html>`;

describe('extractor-maps on a hostile page (in-process, real NATS, parse pool)', () => {
  let nats: TestServer;
  let upstream: LoopbackServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  beforeAll(async () => {
    [nats, upstream] = await Promise.all([
      startNats(),
      startLoopbackHttp((req, res) => {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(req.url?.startsWith('/maps/place/hostile') ? HOSTILE : SMALL);
      }),
    ]);
    const env = loadEnv(ExtractorMapsEnv, {
      NATS_URL: nats.url,
      MAPS_BASE_URL: upstream.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      PARSE_THREADS: '2',
      // Tight for the 9 MB page, wide for the 4 KB one.
      PARSE_BUDGET_MS: '400',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(
      AppModule.forRoot(env, guardedFetch(env.SSRF_ALLOW_HOSTS)),
      { ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorMaps, { gracePeriodMs: 10 }), logger: false },
    );
    await app.listen();
    nc = await connectNats([nats.url], 'test-client');
    client = new MessagingClient(nc);
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await Promise.all([nats?.stop(), upstream?.close()]);
  });

  it('answers PAGE_TOO_COMPLEX for the hostile page, and the small extraction beside it first', async () => {
    const settled: string[] = [];
    const place = (path: string) =>
      client.send(
        SUBJECTS.extractPlace,
        { url: `${upstream.url}${path}`, engine: 'http', timeout: 30_000 },
        { timeoutMs: 30_000 },
      );
    const hostile = place('/maps/place/hostile').then(
      () => settled.push('hostile answered'),
      (e: { code?: string }) => settled.push(`hostile ${e.code}`),
    );
    const small = place('/maps/place/small').then((p) => settled.push(`small ${p.mp_company_name ? 'named' : ''}`));
    await Promise.all([hostile, small]);
    expect(settled).toEqual(['small named', 'hostile PAGE_TOO_COMPLEX']);
  }, 60_000);
});
