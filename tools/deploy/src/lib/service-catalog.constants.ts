import { CONSUMERS, QUEUES, STREAMS, SUBJECTS, type QueueName } from '@trawl/contracts';
import type { ServiceName } from './trawl-values.reader.js';

/**
 * Keys of the Secret; ADMIN_API_KEY, PROXY_URLS (proxy credentials) and KEYS_ENCRYPTION_KEY (the key that seals
 * webhook secrets at rest; required by the dispatcher when NODE_ENV=production) are optional here.
 */
export type SecretKey = 'API_KEYS' | 'WEBHOOK_SIGNING_SECRET' | 'ADMIN_API_KEY' | 'PROXY_URLS' | 'KEYS_ENCRYPTION_KEY';
export const OPTIONAL_SECRET_KEYS: readonly SecretKey[] = ['ADMIN_API_KEY', 'PROXY_URLS', 'KEYS_ENCRYPTION_KEY'];

/** The subjects a service's NATS user may publish to and subscribe to (replies to requests it serves are allowed). */
export interface NatsPermissions {
  publish: readonly string[];
  subscribe: readonly string[];
}

/** Request/reply callers get their replies on inboxes; JetStream users talk to the JetStream API and acknowledge. */
const INBOX = '_INBOX.>';
const JETSTREAM_API = ['$JS.API.>', '$JS.ACK.>', '$JS.FC.>'];
const EXTRACTOR_SUBJECTS = [
  SUBJECTS.searchWeb,
  SUBJECTS.searchMaps,
  SUBJECTS.extractPlace,
  SUBJECTS.extractMapsSearchUrl,
  SUBJECTS.extractRetail,
  SUBJECTS.scrapePage,
];
/** Crawls and maps (ADR 0026): asked by the gateway, served by task-service. */
const CRAWL_SUBJECTS = [SUBJECTS.crawlStart, SUBJECTS.crawlGet, SUBJECTS.crawlCancel, SUBJECTS.mapSite];

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
  /** What its NATS user may do (deploy/nats auth config, rendered from these). */
  nats: NatsPermissions;
  /** Reaches public internet addresses (pages, webhooks): egress to 0.0.0.0/0 and ::/0 minus every private range. */
  internet: boolean;
  /**
   * Redis ACL key patterns and extra rules of its Redis user (`~pattern` read-write, `%R~pattern` read-only), given
   * the pattern of every BullMQ queue key (queue-keys.util.ts).
   */
  redisAcl?: (queueKeys: string) => string;
}

/**
 * An extractor serves its subjects; one that gets pages rendered by the browser fleet (`renders`) also asks
 * extractor-scrape on SUBJECTS.renderPage and reads the replies on its inbox (docs/decisions/0005).
 */
function extractor(name: ServiceName, queues: QueueName[], serves: string[], renders = false): ServiceSpec {
  return {
    name,
    kind: 'nats',
    chromium: false,
    secretKeys: ['PROXY_URLS'],
    redis: false,
    queues,
    nats: renders
      ? { publish: [SUBJECTS.renderPage], subscribe: [...serves, INBOX] }
      : { publish: [], subscribe: serves },
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
    nats: {
      publish: [...EXTRACTOR_SUBJECTS, SUBJECTS.taskSubmit, SUBJECTS.taskGet, ...CRAWL_SUBJECTS],
      subscribe: [INBOX],
    },
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
    nats: {
      publish: [...EXTRACTOR_SUBJECTS, SUBJECTS.taskFinished, ...STREAMS.crawlDocuments.subjects, ...JETSTREAM_API],
      subscribe: [SUBJECTS.taskSubmit, SUBJECTS.taskGet, ...CRAWL_SUBJECTS, INBOX],
    },
    // Crawls and maps read robots.txt, sitemaps and (maps) pages themselves, through the SSRF guard (ADR 0026).
    internet: true,
    redisAcl: (queues) => `~${queues} ~trawl:* allchannels`,
  },
  {
    name: 'webhook-dispatcher',
    kind: 'nats',
    chromium: false,
    secretKeys: ['WEBHOOK_SIGNING_SECRET', 'KEYS_ENCRYPTION_KEY'],
    redis: true,
    queues: [],
    jetstream: { stream: STREAMS.taskOutcomes.name, consumer: CONSUMERS.webhookDispatcher },
    nats: { publish: [SUBJECTS.taskDeliveryFailed, ...JETSTREAM_API], subscribe: [INBOX] },
    // Webhook receivers are on the internet.
    internet: true,
    // Reads the key store only (per-key webhook secrets).
    redisAcl: () => '%R~trawl:apikey:* resetchannels',
  },
  // Extractors serve NATS request/reply; batch work reaches them from these queues' workers.
  // They serve their subjects (replies go to the caller's inbox) and reach nothing in the cluster but NATS; search,
  // maps and retail also ask the browser fleet (extractor-scrape) for renders.
  extractor('extractor-search', [QUEUES.search, QUEUES.mpSearch], [SUBJECTS.searchWeb], true),
  extractor(
    'extractor-maps',
    [QUEUES.maps, QUEUES.mpMaps],
    [SUBJECTS.searchMaps, SUBJECTS.extractPlace, SUBJECTS.extractMapsSearchUrl],
    true,
  ),
  extractor('extractor-retail', [QUEUES.retail], [SUBJECTS.extractRetail], true),
  { ...extractor('extractor-scrape', [QUEUES.scrape], [SUBJECTS.scrapePage, SUBJECTS.renderPage]), chromium: true },
];

export const GATEWAY_PORT = 8080;
export const METRICS_PORT = 9464;
