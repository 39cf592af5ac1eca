import { CONSUMERS, QUEUES, STREAMS, type QueueName } from '@trawl/contracts';
import type { ServiceName } from './trawl-values.js';

/** Keys of the Secret; ADMIN_API_KEY and PROXY_URLS (proxy credentials) are optional. */
export type SecretKey = 'API_KEYS' | 'WEBHOOK_SIGNING_SECRET' | 'ADMIN_API_KEY' | 'PROXY_URLS';
export const OPTIONAL_SECRET_KEYS: readonly SecretKey[] = ['ADMIN_API_KEY', 'PROXY_URLS'];

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
}

export const SERVICE_CATALOG: readonly ServiceSpec[] = [
  { name: 'gateway', kind: 'http', chromium: false, secretKeys: ['API_KEYS', 'ADMIN_API_KEY'], redis: true, queues: [] },
  {
    name: 'task-service',
    kind: 'nats',
    chromium: false,
    secretKeys: [],
    redis: true,
    // Its workers take every queue.
    queues: Object.values(QUEUES),
  },
  {
    name: 'webhook-dispatcher',
    kind: 'nats',
    chromium: false,
    secretKeys: ['WEBHOOK_SIGNING_SECRET'],
    redis: true,
    queues: [],
    jetstream: { stream: STREAMS.taskOutcomes.name, consumer: CONSUMERS.webhookDispatcher },
  },
  // Extractors serve NATS request/reply; batch work reaches them from these queues' workers.
  { name: 'extractor-search', kind: 'nats', chromium: false, secretKeys: ['PROXY_URLS'], redis: false, queues: [QUEUES.search, QUEUES.mpSearch] },
  { name: 'extractor-maps', kind: 'nats', chromium: false, secretKeys: ['PROXY_URLS'], redis: false, queues: [QUEUES.maps, QUEUES.mpMaps] },
  { name: 'extractor-retail', kind: 'nats', chromium: false, secretKeys: ['PROXY_URLS'], redis: false, queues: [QUEUES.retail] },
  { name: 'extractor-scrape', kind: 'nats', chromium: true, secretKeys: ['PROXY_URLS'], redis: false, queues: [QUEUES.scrape] },
];

export const GATEWAY_PORT = 8080;
export const METRICS_PORT = 9464;
