// Issue 13, "must show" 4: after traffic, this extractor's /metrics shows the parse-drift families: per-field presence
// (trawl_parse_field_present_total{parser,field}) and pages parsed (trawl_parse_pages_total{parser}). In-process app
// on real NATS, the upstream simulator as the upstream, the ops server serving the service's registry.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorSearchEnv, loadEnv } from '@trawl/config';
import { QUEUE_GROUPS, SUBJECTS } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { PARSER_VERSION } from '@trawl/parsers';
import { startOpsServer, TrawlMetrics, type OpsServer } from '@trawl/telemetry';
import { metricSample, startBuiltSimulator, startNats, type TestServer } from '@trawl/testing';
import { guardedFetch } from '@trawl/upstream';
import { AppModule } from '../src/app.module.js';

describe('extractor-search parse-drift metrics after traffic (in-process, real NATS, upstream simulator)', () => {
  let nats: TestServer;
  let sim: { url: string; stop(): Promise<void> };
  let app: INestMicroservice;
  let ops: OpsServer;
  let nc: NatsConnection;
  let client: MessagingClient;

  beforeAll(async () => {
    [nats, sim] = await Promise.all([startNats(), startBuiltSimulator()]);
    const env = loadEnv(ExtractorSearchEnv, {
      NATS_URL: nats.url,
      SEARCH_BASE_URL: sim.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
    });
    const metrics = new TrawlMetrics({ service: 'extractor-search', defaultMetrics: false });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(
      AppModule.forRoot(env, guardedFetch(env.SSRF_ALLOW_HOSTS), metrics),
      { ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorSearch, { gracePeriodMs: 10 }), logger: false },
    );
    await app.listen();
    ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: metrics.registry,
      ready: () => Promise.resolve({ ok: true, details: {} }),
    });
    nc = await connectNats([nats.url], 'test-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await ops?.close();
    await app?.close();
    await Promise.all([nats?.stop(), sim?.stop()]);
  });

  it('counts pages and per-field presence by parser on /metrics', async () => {
    const before = await (await fetch(`http://127.0.0.1:${ops.port}/metrics`)).text();
    expect(metricSample(before, 'trawl_parse_pages_total') ?? 0).toBe(0);
    for (const q of ['best hiking boots', 'sourdough starter']) {
      await client.send(SUBJECTS.searchWeb, { q, hl: 'en', gl: 'us', timeout: 10_000 }, { timeoutMs: 10_000 });
    }
    const res = await fetch(`http://127.0.0.1:${ops.port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(metricSample(text, 'trawl_parse_pages_total', { parser: 'search', service: 'extractor-search' })).toBe(2);
    expect(metricSample(text, 'trawl_parse_field_present_total', { parser: 'search', field: 'results[].title' })).toBe(
      2,
    );
    expect(metricSample(text, 'trawl_parse_field_present_total', { parser: 'search', field: 'peopleAlsoAsk' })).toBe(2);
    // A field the pages never fill has its series at 0, so an alert can see a rate fall to nothing.
    expect(metricSample(text, 'trawl_parse_field_present_total', { parser: 'search', field: 'results[].date' })).toBe(
      0,
    );
    expect(text).toContain('# TYPE trawl_parse_unrecognised_total counter');
  });

  it('adds the meta block (parser, version, empty fields) only when the request asks for it', async () => {
    const plain = await client.send(SUBJECTS.searchWeb, { q: 'kettle', timeout: 10_000 }, { timeoutMs: 10_000 });
    expect(plain.meta).toBeUndefined();
    const res = await client.send(
      SUBJECTS.searchWeb,
      { q: 'kettle', meta: true, timeout: 10_000 },
      { timeoutMs: 10_000 },
    );
    expect(res.meta).toEqual({
      parser: 'search',
      parserVersion: PARSER_VERSION,
      emptyFields: expect.arrayContaining(['results[].date']),
    });
    expect(res.meta?.emptyFields).not.toContain('results');
  });
});
