import { parseCrawlDocument } from './crawl-document.schema.js';
import type { CrawlStatusReply } from './crawl.types.js';
import type { ActiveCrawlsResult, CrawlErrorsResult, CrawlStartReply, MapSiteReply } from './crawl-response.schema.js';
import { CrawlActiveRequestDto, CrawlGetRequestDto, CrawlLookupRequestDto } from './dto/crawl-lookup-request.dto.js';
import { CrawlPlanReadyRequestDto, CrawlPlanRequestDto } from './dto/crawl-plan-request.dto.js';
import { CrawlStartRequestDto } from './dto/crawl-start-request.dto.js';
import type { CrawlPlan, CrawlPlanReady } from './crawl-plan.schema.js';
import { ExtractAbandonDto } from './dto/extract-abandon.dto.js';
import { ExtractUrlRequestDto } from './dto/extract-url-request.dto.js';
import { LlmTokensRecordRequestDto } from './dto/llm-tokens-record-request.dto.js';
import { KeyQueueRequestDto } from './dto/key-queue-request.dto.js';
import { LlmTokensUsageRequestDto } from './dto/llm-tokens-usage-request.dto.js';
import { MapSiteRequestDto } from './dto/map-site-request.dto.js';
import { MapsSearchRequestDto } from './dto/maps-search-request.dto.js';
import { RenderPageRequestDto, type RenderPageReply } from './dto/render-page-request.dto.js';
import { ScrapePageRequestDto } from './dto/scrape-page-request.dto.js';
import { TaskLookupRequestDto } from './dto/task-lookup-request.dto.js';
import { WebSearchRequestDto } from './dto/web-search-request.dto.js';
import { WebhookDeadLetterDto } from './dto/webhook-dead-letter.dto.js';
import type { MapsSearchData, MapsSearchResponse, PlaceRecord } from './results/maps-result.schema.js';
import type { RetailRecord } from './results/retail-result.schema.js';
import type { ScrapeResult } from './results/scrape-result.schema.js';
import type { WebSearchResult } from './results/web-search-result.schema.js';
import type { KeyQueueJobs } from './key-queue.schema.js';
import type { LlmTokensRecordReply, LlmTokensUsage } from './llm-tokens.schema.js';
import { parseOutcomeEvent } from './outcome-event.parser.js';
import { parseTaskSubmitRequest } from './task-submit-request.parser.js';
import type { TaskSubmitReply } from './task.types.js';
import type { TaskRecord } from './task-response.schema.js';
import { dtoPayload, parsedPayload, replyOf, type ReplyType, type WirePayload } from './wire-payload.schema.js';

/*
 * EVERY NATS SUBJECT TRAWL USES, ONE ROW EACH (SUBJECT_TABLE below).
 *
 * A subject names `<domain>.<verb>.v<N>`; a breaking change to its payload is a new subject (a new row), never an
 * edit of this one. From this table come: SUBJECTS (the names code imports), the request and reply types of
 * `MessagingClient.send` (RpcContract), the service named when nothing answers, the check that a service only sends
 * what its rows let it call (`MessagingModule.forRoot({ caller })`), the pattern and payload check of each NATS
 * handler (`@ServesSubject` in libs/messaging), the check at start that a service serves exactly its rows
 * (DrainingNatsServer), and each service's NATS permissions in the deploy (tools/deploy renders deploy/nats/auth.conf
 * and deploy/k8s/trawl.yaml from it).
 *
 * To add a subject, add one row here and nothing else of the wiring:
 *   1. a request/reply subject: `myThing: rpc('domain.verb.v1', dtoPayload(MyRequestDto), replyOf<MyReply>(),
 *      { servedBy: '<service>', callers: ['<service>', ...] })`; the request is a class-validator DTO in ./dto (or,
 *      for a union, `parsedPayload(name, parse)`); the reply a type in ./results or ./task.types;
 *      a JetStream subject: `myEvent: stream('domain.event-happened.v1', dtoPayload(MyEventDto), { stream: 'NAME',
 *      publishers: [...], consumers: [...] })`, and its stream in STREAMS;
 *      a core NATS notice every replica of its subscribers hears (kept by nothing: who misses it misses it):
 *      `myNotice: broadcast('domain.thing-happened.v1', dtoPayload(MyNoticeDto), { publishers: [...],
 *      subscribers: [...] })`;
 *   2. then, in the serving app, a controller method `@ServesSubject(SUBJECTS.myThing) handle(req: MyRequestDto)`
 *      (the service refuses to start while it serves a subject not in its rows, or misses one of its rows);
 *   3. re-render the deploy: `npm run build`, then `node dist/tools/deploy/src/main.js render -o
 *      deploy/k8s/trawl.yaml` and `node dist/tools/deploy/src/main.js nats-auth -o deploy/nats/auth.conf` (a test
 *      fails while either is stale; tools/deploy/test/subject-permissions.spec.ts walks every row in a nats-server).
 * A new service goes into SERVICE_NAMES first (and the deploy's values).
 */

/** Every Trawl service: a NATS user each in the deploy, and for those that serve subjects, their queue group. */
export const SERVICE_NAMES = [
  'gateway',
  'task-service',
  'webhook-dispatcher',
  'extractor-search',
  'extractor-maps',
  'extractor-retail',
  'extractor-scrape',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * The reply-inbox prefix of a NATS user (each Trawl service connects as its own user, named after it): its replies
 * arrive on `<prefix>.<id>`, and the deploy's permissions let that user subscribe to its own prefix only, so no
 * requester reads another's replies (NATS's default `_INBOX.>` is everyone's).
 */
export function inboxPrefixOf(natsUser: string): string {
  return `_INBOX_${natsUser}`;
}

/** A request/reply subject: served in one service's queue group, asked by its callers. */
export interface RpcRow<S extends string = string, Req = unknown, Rep = unknown> {
  readonly kind: 'rpc';
  readonly subject: S;
  /** The request payload and its check, run by the serving handler on every message. */
  readonly request: WirePayload<Req>;
  readonly reply: ReplyType<Rep>;
  /** The service whose queue group serves it (one replica per message). */
  readonly servedBy: ServiceName;
  /** The services whose code sends it (their NATS users may publish it). */
  readonly callers: readonly ServiceName[];
}

/** A JetStream subject: kept by a stream until its consumers have processed it. */
export interface StreamRow<S extends string = string, Ev = unknown> {
  readonly kind: 'stream';
  readonly subject: S;
  /** The event payload and its check, run by every consumer on every message. */
  readonly payload: WirePayload<Ev>;
  /** The stream that keeps it (STREAMS). */
  readonly stream: string;
  readonly publishers: readonly ServiceName[];
  readonly consumers: readonly ServiceName[];
}

/**
 * A core NATS notice (no queue group, no stream): every connected replica of each subscriber hears it, none keeps it.
 * For what only the replica holding some state can act on (ADR 0043: the request an abandon names).
 */
export interface BroadcastRow<S extends string = string, Ev = unknown> {
  readonly kind: 'broadcast';
  readonly subject: S;
  /** The notice's payload and its check, run by every subscriber on every message. */
  readonly payload: WirePayload<Ev>;
  readonly publishers: readonly ServiceName[];
  readonly subscribers: readonly ServiceName[];
}

export type SubjectRow = RpcRow | StreamRow | BroadcastRow;

function rpc<const S extends string, Req, Rep>(
  subject: S,
  request: WirePayload<Req>,
  reply: ReplyType<Rep>,
  who: { servedBy: ServiceName; callers: readonly ServiceName[] },
): RpcRow<S, Req, Rep> {
  return { kind: 'rpc', subject, request, reply, ...who };
}

function stream<const S extends string, Ev>(
  subject: S,
  payload: WirePayload<Ev>,
  who: { stream: string; publishers: readonly ServiceName[]; consumers: readonly ServiceName[] },
): StreamRow<S, Ev> {
  return { kind: 'stream', subject, payload, ...who };
}

function broadcast<const S extends string, Ev>(
  subject: S,
  payload: WirePayload<Ev>,
  who: { publishers: readonly ServiceName[]; subscribers: readonly ServiceName[] },
): BroadcastRow<S, Ev> {
  return { kind: 'broadcast', subject, payload, ...who };
}

/** Who sends the extract subjects: the gateway (synchronous endpoints) and task-service (batch workers). */
const EXTRACT_CALLERS = ['gateway', 'task-service'] as const;

export const SUBJECT_TABLE = {
  /** Web search by query (POST /extract/search, search batches). */
  searchWeb: rpc('extract.search.v1', dtoPayload(WebSearchRequestDto), replyOf<WebSearchResult>(), {
    servedBy: 'extractor-search',
    callers: EXTRACT_CALLERS,
  }),
  /** Map-places search by query (POST /extract/search/maps, maps batches). */
  searchMaps: rpc('extract.maps.v1', dtoPayload(MapsSearchRequestDto), replyOf<MapsSearchResponse>(), {
    servedBy: 'extractor-maps',
    callers: EXTRACT_CALLERS,
  }),
  /** Single URL of type `mp-maps` (a place page). */
  extractPlace: rpc('extract.place.v1', dtoPayload(ExtractUrlRequestDto), replyOf<PlaceRecord>(), {
    servedBy: 'extractor-maps',
    callers: EXTRACT_CALLERS,
  }),
  /** Single URL of type `mp-search` (a maps search page). */
  extractMapsSearchUrl: rpc('extract.maps-url.v1', dtoPayload(ExtractUrlRequestDto), replyOf<MapsSearchData>(), {
    servedBy: 'extractor-maps',
    callers: EXTRACT_CALLERS,
  }),
  /** Single URL of type `retail` (a product page). */
  extractRetail: rpc('extract.retail.v1', dtoPayload(ExtractUrlRequestDto), replyOf<RetailRecord>(), {
    servedBy: 'extractor-retail',
    callers: EXTRACT_CALLERS,
  }),
  /** Page scrape (POST /scrape, POST /extract with type `scrape`, URL batches of that type). */
  scrapePage: rpc('scrape.page.v1', dtoPayload(ScrapePageRequestDto), replyOf<ScrapeResult>(), {
    servedBy: 'extractor-scrape',
    callers: EXTRACT_CALLERS,
  }),
  /**
   * One page rendered in Chromium for an upstream extractor (search, maps, retail in `browser`/`auto`): the browser
   * fleet's pool and SSRF guard; see docs/decisions/0005-one-browser-fleet.md.
   */
  renderPage: rpc('render.page.v1', dtoPayload(RenderPageRequestDto), replyOf<RenderPageReply>(), {
    servedBy: 'extractor-scrape',
    callers: ['extractor-search', 'extractor-maps', 'extractor-retail'],
  }),
  /**
   * A request's caller stopped waiting for it (ADR 0043): task-service when a running task is cancelled (or its crawl,
   * or its lock was lost), the gateway when the HTTP client of a synchronous scrape hung up, names the request it sent;
   * the extractor-scrape replica running it stops (its browser page closed, its fetch aborted) instead of working on to
   * the request's timeout. Only requests that carried ABANDON_KEY_HEADER are named.
   */
  extractAbandon: broadcast('extract.abandon.v1', dtoPayload(ExtractAbandonDto), {
    publishers: ['gateway', 'task-service'],
    subscribers: ['extractor-scrape'],
  }),
  /** Batch submission: creates BullMQ jobs, replies with the job objects. */
  taskSubmit: rpc(
    'task.submit.v1',
    parsedPayload('parseTaskSubmitRequest', parseTaskSubmitRequest),
    replyOf<TaskSubmitReply>(),
    { servedBy: 'task-service', callers: ['gateway'] },
  ),
  /** Task lookup by id (GET /extractTask/{jobId}); replies the task record. */
  taskGet: rpc('task.get.v1', dtoPayload(TaskLookupRequestDto), replyOf<TaskRecord>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /**
   * Cancel a task by id (DELETE /extractTask/{jobId}): a waiting task never runs, an active one's result is
   * discarded, a batch's queries are cancelled with it; the outcome is `failed` with TASK_CANCELLED. Replies the
   * task record.
   */
  taskCancel: rpc('task.cancel.v1', dtoPayload(TaskLookupRequestDto), replyOf<TaskRecord>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /**
   * Where a key's jobs stand in the task queues (GET /usage/queue, Firecrawl's queue status; ADR 0041): outstanding,
   * running, waiting, its cap and its last success.
   */
  taskQueue: rpc('task.queue.v1', dtoPayload(KeyQueueRequestDto), replyOf<KeyQueueJobs>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /**
   * A crawl's options drawn from a prompt and the site's map by extractor-scrape's language model (POST /crawl/plan,
   * POST /crawl with `prompt`, Firecrawl's params preview; ADR 0042); the gateway maps the site first.
   */
  crawlPlan: rpc('crawl.plan.v1', dtoPayload(CrawlPlanRequestDto), replyOf<CrawlPlan>(), {
    servedBy: 'extractor-scrape',
    callers: ['gateway'],
  }),
  /**
   * Whether extractor-scrape would plan a crawl for this key now (a model configured, the key's tokens not spent),
   * asked before the site is mapped for a plan; replies `{ ready: true }` or the plan's own refusal (ADR 0042).
   */
  crawlPlanReady: rpc('crawl.plan.ready.v1', dtoPayload(CrawlPlanReadyRequestDto), replyOf<CrawlPlanReady>(), {
    servedBy: 'extractor-scrape',
    callers: ['gateway'],
  }),
  /** Start a crawl (POST /crawl): replies its id at once; task-service's crawl workers run it (ADR 0026). */
  crawlStart: rpc('crawl.start.v1', dtoPayload(CrawlStartRequestDto), replyOf<CrawlStartReply>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /** A crawl's status and one page of its documents (GET /crawl/{id}). */
  crawlGet: rpc('crawl.get.v1', dtoPayload(CrawlGetRequestDto), replyOf<CrawlStatusReply>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /** Stop a crawl (DELETE /crawl/{id}): pages in flight are abandoned (ADR 0043), no new page starts. */
  crawlCancel: rpc('crawl.cancel.v1', dtoPayload(CrawlLookupRequestDto), replyOf<CrawlStatusReply>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /** A crawl's pages that ended in an error and the URLs robots.txt kept it from (GET /crawl/{id}/errors). */
  crawlErrors: rpc('crawl.errors.v1', dtoPayload(CrawlLookupRequestDto), replyOf<CrawlErrorsResult>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /** The calling key's running crawls (GET /crawl/active). */
  crawlActive: rpc('crawl.active.v1', dtoPayload(CrawlActiveRequestDto), replyOf<ActiveCrawlsResult>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /** A site's URLs from its sitemaps and links (POST /map); task-service fetches them through the SSRF guard. */
  mapSite: rpc('map.site.v1', dtoPayload(MapSiteRequestDto), replyOf<MapSiteReply>(), {
    servedBy: 'task-service',
    callers: ['gateway'],
  }),
  /**
   * A key's language-model tokens per month and its budget (ADR 0040): asked by extractor-scrape before it calls the
   * model for the `json` / `summary` formats (a spent budget refuses the scrape), and by the gateway's usage routes.
   * The counts are kept in the task Redis.
   */
  tokensUsage: rpc('tokens.usage.v1', dtoPayload(LlmTokensUsageRequestDto), replyOf<LlmTokensUsage>(), {
    servedBy: 'task-service',
    callers: ['gateway', 'extractor-scrape'],
  }),
  /** What one chat-completions call spent, added to the key's current month by task-service (ADR 0040). */
  tokensRecord: rpc('tokens.record.v1', dtoPayload(LlmTokensRecordRequestDto), replyOf<LlmTokensRecordReply>(), {
    servedBy: 'task-service',
    callers: ['extractor-scrape'],
  }),
  /**
   * A crawl's documents, one message per page, on `crawl.document.v1.<crawl id>` (`crawlDocumentSubject(id)`; the row
   * is the wildcard the stream keeps): stored and read back by task-service, checked as they are read.
   */
  crawlDocument: stream('crawl.document.v1.>', parsedPayload('parseCrawlDocument', parseCrawlDocument), {
    stream: 'CRAWL_DOCUMENTS',
    publishers: ['task-service'],
    consumers: ['task-service'],
  }),
  /**
   * A task reached its final state, or a crawl's webhook event (ADR 0026): published by task-service, delivered by
   * webhook-dispatcher (whose dead-letter CLI publishes it again on replay). Either shape is checked
   * (parseOutcomeEvent: TaskFinishedEventDto or CrawlWebhookEventDto).
   */
  taskFinished: stream('task.finished.v1', parsedPayload('parseOutcomeEvent', parseOutcomeEvent), {
    stream: 'TASK_OUTCOMES',
    publishers: ['task-service', 'webhook-dispatcher'],
    consumers: ['webhook-dispatcher'],
  }),
  /** A task outcome whose webhook delivery gave up: published, listed and replayed by webhook-dispatcher. */
  taskDeliveryFailed: stream('task.delivery-failed.v1', dtoPayload(WebhookDeadLetterDto), {
    stream: 'WEBHOOK_DEAD_LETTERS',
    publishers: ['webhook-dispatcher'],
    consumers: ['webhook-dispatcher'],
  }),
} as const satisfies Record<string, SubjectRow>;

type Table = typeof SUBJECT_TABLE;

/** The name → subject map code imports (`SUBJECTS.searchWeb` is 'extract.search.v1'). */
export const SUBJECTS = Object.fromEntries(Object.entries(SUBJECT_TABLE).map(([name, row]) => [name, row.subject])) as {
  readonly [K in keyof Table]: Table[K]['subject'];
};

export type Subject = (typeof SUBJECTS)[keyof typeof SUBJECTS];

/** Every row, in table order. */
export const SUBJECT_ROWS: readonly SubjectRow[] = Object.values(SUBJECT_TABLE);

/** The row of `subject`, or undefined for a subject that is not Trawl's. */
export function subjectRow(subject: string): SubjectRow | undefined {
  return SUBJECT_ROWS.find((row) => row.subject === subject);
}

/** The request/reply subjects `service` serves (its queue group's handlers), in table order. */
export function subjectsServedBy(service: ServiceName): string[] {
  return SUBJECT_ROWS.flatMap((row) => (row.kind === 'rpc' && row.servedBy === service ? [row.subject] : []));
}

/** The broadcast subjects `service` subscribes to, in table order. */
export function broadcastsHeardBy(service: ServiceName): BroadcastRow[] {
  return SUBJECT_ROWS.filter(
    (row): row is BroadcastRow => row.kind === 'broadcast' && row.subscribers.includes(service),
  );
}

/** Whether `service` is among the subscribers of the broadcast `subject` (false for a subject that is no broadcast). */
export function hearsBroadcast(service: ServiceName, subject: string): boolean {
  return broadcastsHeardBy(service).some((row) => row.subject === subject);
}

/** NATS queue groups: one per service kind that serves subjects, so each message is handled by one replica. */
export const QUEUE_GROUPS = {
  extractorSearch: 'extractor-search',
  extractorMaps: 'extractor-maps',
  extractorRetail: 'extractor-retail',
  extractorScrape: 'extractor-scrape',
  taskService: 'task-service',
} as const satisfies Record<string, ServiceName>;

/** JetStream resources: the stream that keeps final task outcomes until the dispatcher has delivered them. */
export const STREAMS = {
  taskOutcomes: { name: SUBJECT_TABLE.taskFinished.stream, subjects: [SUBJECTS.taskFinished] },
  /** Dead letters: outcomes the dispatcher could not deliver; listed and replayed by its CLI. */
  webhookDeadLetters: { name: SUBJECT_TABLE.taskDeliveryFailed.stream, subjects: [SUBJECTS.taskDeliveryFailed] },
  /** Crawls' documents, bounded by bytes and age (docs/decisions/0026-crawl-and-map.md). */
  crawlDocuments: { name: SUBJECT_TABLE.crawlDocument.stream, subjects: [SUBJECTS.crawlDocument] },
} as const;

/** Durable JetStream consumer names. */
export const CONSUMERS = {
  webhookDispatcher: 'webhook-dispatcher',
} as const;

/** The JetStream subject of one crawl's documents. */
export function crawlDocumentSubject(crawlId: string): string {
  return `${SUBJECTS.crawlDocument.slice(0, -'>'.length)}${crawlId}`;
}
