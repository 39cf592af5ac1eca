import { describe, expect, it } from '@jest/globals';
import type * as contracts from '@trawl/contracts';
import { WebhookSigner, webhookBody } from '@trawl/webhooks';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as client from '../index.js';
import { CLIENT_OPERATIONS, TrawlApiError, TrawlClient, verifyWebhook, WebhookVerificationError } from '../index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const SECRET = `whsec_${Buffer.from('client-spec-signing-secret-0123456789').toString('base64')}`;

/**
 * Compile-time, both ways: each response type of libs/contracts (derived from its schema, ADR 0035) and the client's
 * type of the same name (generated from openapi.json, which those schemas wrote) are the same type. A schema changed
 * without `npm run openapi` fails the openapi regeneration test; generated types edited by hand, or a renderer that
 * reads a keyword otherwise than the schema builder types it, fail `tsc` here.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type All<T extends true[]> = T;
export type ContractsAreTheClient = All<
  [
    Same<contracts.ErrorData, client.ErrorData>,
    Same<contracts.WireError, client.WireError>,
    Same<contracts.WebSearchResult, client.WebSearchResult>,
    Same<contracts.MapsPlaceItem, client.MapsPlaceItem>,
    Same<contracts.MapsSearchData, client.MapsSearchData>,
    Same<contracts.MapsSearchResponse, client.MapsSearchResponse>,
    Same<contracts.PlaceRecord, client.PlaceRecord>,
    Same<contracts.Money, client.Money>,
    Same<contracts.ResultMeta, client.ResultMeta>,
    Same<contracts.RetailRecord, client.RetailRecord>,
    Same<contracts.ScrapeResult, client.ScrapeResult>,
    Same<contracts.ExtractResponse<'retail'>, client.ExtractResponse_retail>,
    Same<contracts.ExtractResponse<'mp-maps'>, client.ExtractResponse_mp_maps>,
    Same<contracts.ExtractResponse<'mp-search'>, client.ExtractResponse_mp_search>,
    Same<contracts.ExtractResponse<'scrape'>, client.ExtractResponse_scrape>,
    Same<contracts.TaskRecord, client.TaskRecord>,
    Same<contracts.BatchJobOpts, client.BatchJobOpts>,
    Same<contracts.MapsBatchJobData, client.MapsBatchJobData>,
    Same<contracts.SearchBatchJobData, client.SearchBatchJobData>,
    Same<contracts.BatchJob<contracts.MapsBatchJobData>, client.MapsBatchJob>,
    Same<contracts.BatchJob<contracts.SearchBatchJobData>, client.SearchBatchJob>,
    Same<contracts.WebhookPayload, client.WebhookPayload>,
    Same<contracts.CrawlDocument, client.CrawlDocument>,
    Same<contracts.CrawlStartReply, client.CrawlStartReply>,
    Same<contracts.CrawlStatusResult, client.CrawlStatus>,
    Same<contracts.MapLink, client.MapLink>,
    Same<contracts.MapSiteReply, client.MapSiteReply>,
    Same<contracts.LlmTokensPeriod, client.LlmTokensPeriod>,
    Same<contracts.LlmTokensUsage, client.LlmTokensUsage>,
    // Where the document says less than the code: `scrapeOptions` is the scrape DTO's type in the contracts, an
    // object in the document (anyObjectOf).
    Same<Omit<contracts.UrlJobData, 'scrapeOptions'>, Omit<client.UrlJobData, 'scrapeOptions'>>,
    Same<Omit<contracts.BatchJob<contracts.UrlJobData>, 'data'>, Omit<client.UrlBatchJob, 'data'>>,
  ]
>;

function stubFetch(status: number, body: unknown, seen: { url?: string; init?: RequestInit } = {}): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    seen.url = String(url);
    seen.init = init;
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', 'x-request-id': 'rid-header' },
    });
  }) as typeof fetch;
}

describe('TrawlClient', () => {
  it('has exactly the operations (method and path) of openapi.json', () => {
    const doc = JSON.parse(readFileSync(resolve(ROOT, 'openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace('/api/openapi/v1', '')}`),
      )
      .sort();
    const offered = Object.values(CLIENT_OPERATIONS)
      .map((op) => `${op.method} ${op.path}`)
      .sort();
    expect(offered).toEqual(documented);
  });

  it('sends the key and JSON body and answers the envelope data', async () => {
    const seen: { url?: string; init?: RequestInit } = {};
    const api = new TrawlClient({
      baseUrl: 'http://127.0.0.1:1/api/openapi/v1/',
      apiKey: 'k1',
      fetch: stubFetch(
        200,
        { requestId: 'r', code: 0, errorCode: 200, message: 'success', timestamp: 1, data: { taskId: 't' } },
        seen,
      ),
    });
    await expect(api.getTask('a/b')).resolves.toEqual({ taskId: 't' });
    expect(seen.url).toBe('http://127.0.0.1:1/api/openapi/v1/extractTask/a%2Fb');
    expect(seen.init?.method).toBe('GET');
    expect((seen.init?.headers as Record<string, string>)['x-api-key']).toBe('k1');
    await api.search({ q: 'coffee', num: 10 });
    expect(seen.init?.body).toBe('{"q":"coffee","num":10}');
    expect((seen.init?.headers as Record<string, string>)['content-type']).toBe('application/json');
  });

  it('throws the failure envelope as a TrawlApiError with code, retryable, requestId and field', async () => {
    const api = new TrawlClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k',
      fetch: stubFetch(400, {
        requestId: 'rid-1',
        code: 400,
        errorCode: 400,
        message: 'num must not be greater than 300',
        timestamp: 1,
        data: { error: 'VALIDATION_FAILED', retryable: false, field: 'num' },
      }),
    });
    const error = await api.search({ q: 'x', num: 301 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrawlApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      retryable: false,
      requestId: 'rid-1',
      field: 'num',
    });
  });

  it('turns a non-JSON answer into a TrawlApiError too', async () => {
    const api = new TrawlClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k',
      fetch: stubFetch(502, '<html>bad gateway</html>'),
    });
    await expect(api.scrape({ url: 'https://example.com/' })).rejects.toMatchObject({
      status: 502,
      code: 'INTERNAL',
      retryable: true,
      requestId: 'rid-header',
    });
  });
});

describe('verifyWebhook', () => {
  const event: contracts.TaskFinishedEvent = {
    eventId: 'evt_1',
    event: 'task.completed',
    webhook: 'http://127.0.0.1:1/hook',
    task: {
      taskId: 'job-1',
      status: 'completed',
      params: {},
      data: { ok: true },
      progress: 100,
      attemptsMade: 1,
      finishedOn: 2,
      processedOn: 1,
      stacktrace: [],
    },
    occurredAt: 2,
  };

  it('verifies a delivery signed as the webhook dispatcher signs it and returns the payload', () => {
    const body = webhookBody(event);
    const headers = new WebhookSigner(SECRET).sign('evt_1', Math.floor(Date.now() / 1000), body);
    const payload = verifyWebhook(SECRET, { ...headers }, body);
    expect(payload).toMatchObject({ event: 'task.completed', taskId: 'job-1', status: 'completed' });
    expect(verifyWebhook(SECRET, new Headers({ ...headers }), Buffer.from(body)).taskId).toBe('job-1');
  });

  it('refuses a tampered body, another secret, and missing headers', () => {
    const body = webhookBody(event);
    const headers = { ...new WebhookSigner(SECRET).sign('evt_1', Math.floor(Date.now() / 1000), body) };
    expect(() => verifyWebhook(SECRET, headers, body.replace('job-1', 'job-2'))).toThrow(WebhookVerificationError);
    const other = `whsec_${Buffer.from('another-signing-secret-0123456789').toString('base64')}`;
    expect(() => verifyWebhook(other, headers, body)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(SECRET, {}, body)).toThrow(/missing webhook-id/);
  });
});
