import {
  CONSUMERS,
  IDEMPOTENCY_KEYS,
  inboxPrefixOf,
  PUBLISHED_OUTCOMES_KEY,
  QUEUES,
  STREAMS,
  SUBJECT_ROWS,
  type QueueName,
  type SubjectRow,
} from '@trawl/contracts';
import type { ServiceName } from './trawl-values.reader.js';

/**
 * Keys of the Secret; ADMIN_API_KEY, PROXY_URLS (proxy credentials), KEYS_ENCRYPTION_KEY (the key that seals
 * webhook secrets at rest; required by the dispatcher when NODE_ENV=production) and LLM_API_KEY (the key of the
 * `json`/`summary` formats' model) are optional here.
 */
export type SecretKey =
  'API_KEYS' | 'WEBHOOK_SIGNING_SECRET' | 'ADMIN_API_KEY' | 'PROXY_URLS' | 'KEYS_ENCRYPTION_KEY' | 'LLM_API_KEY';
export const OPTIONAL_SECRET_KEYS: readonly SecretKey[] = [
  'ADMIN_API_KEY',
  'PROXY_URLS',
  'KEYS_ENCRYPTION_KEY',
  'LLM_API_KEY',
];

/** The subjects a service's NATS user may publish to and subscribe to (replies to requests it serves are allowed). */
export interface NatsPermissions {
  publish: readonly string[];
  subscribe: readonly string[];
  /** It serves requests, so it may answer them (`allow_responses`). */
  answers: boolean;
}

/** JetStream users talk to the JetStream API and acknowledge. (Replies come on each user's own inboxes.) */
const JETSTREAM_API = ['$JS.API.>', '$JS.ACK.>', '$JS.FC.>'];

/**
 * What `service`'s NATS user may do, read off the subject table (SUBJECT_TABLE in libs/contracts): it publishes the
 * request subjects it calls and the JetStream subjects it publishes, and subscribes to the request subjects it
 * serves; a caller reads replies on its inbox; a JetStream publisher or consumer talks to the JetStream API (and
 * reads its answers on its inbox); it publishes the broadcast notices it sends and subscribes to those it hears.
 * Replies to requests it serves are allowed by `allow_responses`.
 */
export function natsPermissionsOf(service: ServiceName, rows: readonly SubjectRow[] = SUBJECT_ROWS): NatsPermissions {
  const calls = rows.filter((r) => r.kind === 'rpc' && r.callers.includes(service)).map((r) => r.subject);
  const serves = rows.filter((r) => r.kind === 'rpc' && r.servedBy === service).map((r) => r.subject);
  const publishes = rows
    .filter((r) => (r.kind === 'stream' || r.kind === 'broadcast') && r.publishers.includes(service))
    .map((r) => r.subject);
  const hears = rows.filter((r) => r.kind === 'broadcast' && r.subscribers.includes(service)).map((r) => r.subject);
  const jetstream = rows.some(
    (r) => r.kind === 'stream' && (r.publishers.includes(service) || r.consumers.includes(service)),
  );
  const inbox = calls.length > 0 || jetstream;
  return {
    publish: [...calls, ...publishes, ...(jetstream ? JETSTREAM_API : [])],
    // A caller reads replies on its own inboxes only (`inboxPrefixOf`, as connectNats sets), never another's.
    subscribe: [...serves, ...hears, ...(inbox ? [`${inboxPrefixOf(service)}.>`] : [])],
    answers: serves.length > 0,
  };
}

/** What the manifests need to know about each service; queue and stream names come from the wire contract. */
export interface ServiceSpec {
  name: ServiceName;
  /** `http`: the gateway (API, health and metrics on PORT). `nats`: health and metrics on METRICS_PORT. */
  kind: 'http' | 'nats';
  /** Runs the Chromium image (extractor-scrape). */
  chromium: boolean;
  /** Environment keys it takes from the Secret. */
  secretKeys: readonly SecretKey[];
  /** Uses Redis (REDIS_URL). */
  redis: boolean;
  /** BullMQ queues whose waiting list measures this service's backlog (KEDA redis trigger). */
  queues: readonly QueueName[];
  /** JetStream stream and durable consumer whose lag measures the backlog (KEDA nats-jetstream trigger). */
  jetstream?: { stream: string; consumer: string };
  /** What its NATS user may do (deploy/nats auth config, rendered from these): `natsPermissionsOf` its rows. */
  nats: NatsPermissions;
  /** Reaches public internet addresses (pages, webhooks): egress to 0.0.0.0/0 and ::/0 minus every private range. */
  internet: boolean;
  /** Calls the `llm` endpoint of the `json` and `summary` formats (LLM_* env, egress to `networkPolicy.llm`). */
  llm?: boolean;
  /** Keeps the keys' language-model token counts and applies their monthly budget (LLM_TOKENS_PER_KEY_PER_MONTH). */
  llmBudget?: boolean;
  /**
   * Redis ACL key patterns and extra rules of its Redis user (`~pattern` read-write, `%R~pattern` read-only), given
   * the pattern of every BullMQ queue key (queue-keys.util.ts).
   */
  redisAcl?: (queueKeys: string) => string;
}

/** An extractor: its subjects and those it calls (the browser fleet's renders, docs/decisions/0005) are its rows'. */
function extractor(name: ServiceName, queues: QueueName[]): ServiceSpec {
  return {
    name,
    kind: 'nats',
    chromium: false,
    secretKeys: ['PROXY_URLS'],
    redis: false,
    queues,
    nats: natsPermissionsOf(name),
    internet: true,
  };
}

export const SERVICE_CATALOG: readonly ServiceSpec[] = [
  {
    name: 'gateway',
    kind: 'http',
    chromium: false,
    secretKeys: ['API_KEYS'],
    redis: true,
    queues: [],
    nats: natsPermissionsOf('gateway'),
    internet: false,
    // Key store, rate and concurrency counters, key revocations (pub/sub). BullMQ's keys are task-service's alone.
    redisAcl: () => '~trawl:apikey:* ~trawl:rl:* ~trawl:inflight:* resetchannels &trawl:apikey:*',
  },
  {
    name: 'task-service',
    kind: 'nats',
    chromium: false,
    // The key of the queue dashboard on its ops port.
    secretKeys: ['ADMIN_API_KEY'],
    redis: true,
    // Its workers take every queue.
    queues: Object.values(QUEUES),
    nats: natsPermissionsOf('task-service'),
    // Crawls and maps read robots.txt, sitemaps and (maps) pages themselves, through the SSRF guard (ADR 0026).
    internet: true,
    // Its queues, its idempotency records and its published-outcome marks; the crawls' keys (one hash tag per crawl,
    // the active set, the per-host budgets: libs/crawl/src/lib/crawl-redis-keys.constants.ts); the batches' finished
    // pages (one hash tag per batch: batchPagesDoneKey); the keys' language-model tokens per month (llmTokensKey,
    // ADR 0040); no channel.
    redisAcl: (queues) =>
      `~${queues} ~${IDEMPOTENCY_KEYS}* ~${PUBLISHED_OUTCOMES_KEY} ~trawl:{crawl:* ~trawl:{crawls}:* ~trawl:{host:* ~trawl:{batch:* ~trawl:tokens:* resetchannels`,
    llmBudget: true,
  },
  {
    name: 'webhook-dispatcher',
    kind: 'nats',
    chromium: false,
    secretKeys: ['WEBHOOK_SIGNING_SECRET', 'KEYS_ENCRYPTION_KEY'],
    redis: true,
    queues: [],
    jetstream: { stream: STREAMS.taskOutcomes.name, consumer: CONSUMERS.webhookDispatcher },
    nats: natsPermissionsOf('webhook-dispatcher'),
    // Webhook receivers are on the internet.
    internet: true,
    // Reads the key store only (per-key webhook secrets).
    redisAcl: () => '%R~trawl:apikey:* resetchannels',
  },
  // Extractors serve NATS request/reply; batch work reaches them from these queues' workers.
  // They serve their subjects (replies go to the caller's inbox) and reach nothing in the cluster but NATS; search,
  // maps and retail also ask the browser fleet (extractor-scrape) for renders.
  extractor('extractor-search', [QUEUES.search, QUEUES.mpSearch]),
  extractor('extractor-maps', [QUEUES.maps, QUEUES.mpMaps]),
  extractor('extractor-retail', [QUEUES.retail]),
  {
    ...extractor('extractor-scrape', [QUEUES.scrape]),
    chromium: true,
    secretKeys: ['PROXY_URLS', 'LLM_API_KEY'],
    llm: true,
  },
];

export const GATEWAY_PORT = 8080;
export const METRICS_PORT = 9464;
