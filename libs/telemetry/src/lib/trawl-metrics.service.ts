import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets in seconds: from cache-hit fast to the longest synchronous extraction (60 s). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

export type NatsOutcome = 'ok' | 'error' | 'timeout' | 'no_responders';
export type JobOutcome = 'completed' | 'failed' | 'retried' | 'stalled';
export type WebhookOutcome = 'delivered' | 'retry' | 'failed';

/** HTTP server metrics (gateway). */
export interface HttpMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
  /** Counts one finished request; `route` is the route pattern (`/api/openapi/v1/extract`), never the raw URL. */
  observe(labels: { method: string; route: string; status: number }, seconds: number): void;
}

/** NATS request/reply metrics, from the requesting side. */
export interface NatsMetrics {
  duration: Histogram<'subject' | 'outcome'>;
  /** Fits `MessagingClient`'s RequestObserver: `(subject, outcome, ms)`. */
  observer: (subject: string, outcome: NatsOutcome, ms: number) => void;
}

/** Running totals of a NATS server's requests (DrainingNatsServer's counters). */
export interface NatsServerTotals {
  /** Requests refused at once because NATS_MAX_IN_FLIGHT were running (the caller sent them elsewhere). */
  refusedBusy: number;
  /** Requests stopped by their caller's `extract.abandon.v1` (ADR 0043). */
  abandoned: number;
}

/** NATS request/reply metrics, from the serving side. */
export interface NatsServerMetrics {
  /** `trawl_nats_server_requests_total{outcome}`: `refused_busy` and `abandoned` requests, read at scrape time. */
  requests: Counter<'outcome'>;
  /** Registers the server whose totals the counter reports (one per process). */
  observe(read: () => NatsServerTotals): void;
}

/** Job counts by queue and BullMQ state. */
export type QueueDepthReader = () => Promise<Record<string, Partial<Record<string, number>>>>;

/** BullMQ queues (task-service). */
export interface QueueMetrics {
  /** `trawl_queue_depth{queue,state}`: filled at scrape time by the readers added with `addDepthReader`. */
  depth: Gauge<'queue' | 'state'>;
  jobs: Counter<'queue' | 'outcome'>;
  /** `trawl_queue_fleet_paused{queue}`: 1 while this replica takes no job of the queue because its fleet is away. */
  fleetPaused: Gauge<'queue'>;
  /** Registers a function that returns job counts per queue and state (e.g. from `queue.getJobCounts()`). */
  addDepthReader(reader: QueueDepthReader): void;
}

/** Playwright browser pool (extractor-scrape). */
export interface BrowserPoolMetrics {
  browsers: Gauge;
  busyPages: Gauge;
  waitQueue: Gauge;
}

/** Upstream proxies (PROXY_URLS): health per proxy, labelled `host:port` (never credentials). */
export interface ProxyMetrics {
  /** `trawl_proxy_requests_total{proxy,outcome}`: requests and tunnels through a proxy (ok, error, timeout, rejected). */
  requests: Counter<'proxy' | 'outcome'>;
  /** `trawl_proxy_cooling{proxy}`: 1 while a proxy is set aside after a block, else 0. */
  cooling: Gauge<'proxy'>;
}

/** Webhook deliveries (webhook-dispatcher). */
export interface WebhookMetrics {
  deliveries: Counter<'outcome'>;
  duration: Histogram<'outcome'>;
}

/** What a parsed record says about the page: which parser read it and which of its fields it filled. */
export interface ParsedPage {
  parser: string;
  presence: Readonly<Record<string, boolean>>;
}

/** Turns a parsed record into its parser and field presence (the parsers' `classifyRecord`); undefined: not counted. */
export type PageClassifier = (record: unknown) => ParsedPage | undefined;

/** What an upstream fetcher reports about each page it parsed (see `UpstreamFetcher`'s `parseObserver`). */
export interface ParseObserver {
  parsed(record: unknown): void;
  /** A page the parser did not recognise (PAGE_NOT_RECOGNISED), by upstream host. */
  unrecognised(upstream: string): void;
}

/** Parser drift (extractors): per-field presence, pages parsed, pages not recognised per upstream. */
export interface ParseMetrics {
  fieldPresent: Counter<'parser' | 'field'>;
  pages: Counter<'parser'>;
  unrecognised: Counter<'upstream'>;
  /** A ParseObserver that counts with these families, reading records with `classify`. */
  observer(classify: PageClassifier): ParseObserver;
}

export interface TrawlMetricsOptions {
  /** Added to every sample as `service`. */
  service: string;
  /** Node process metrics (CPU, memory, event loop lag, GC); default true. */
  defaultMetrics?: boolean;
}

/**
 * The process's metric registry and every Trawl metric family, defined once. A family is registered the first time
 * a service touches it, so a service only exports the families it uses (the gateway has no browser-pool gauges).
 */
export class TrawlMetrics {
  readonly registry = new Registry();
  private httpMetrics?: HttpMetrics;
  private natsMetrics?: NatsMetrics;
  private natsServerMetrics?: NatsServerMetrics;
  private queueMetrics?: QueueMetrics;
  private browserPoolMetrics?: BrowserPoolMetrics;
  private webhookMetrics?: WebhookMetrics;
  private proxyMetrics?: ProxyMetrics;
  private parseMetrics?: ParseMetrics;

  constructor(options: TrawlMetricsOptions) {
    this.registry.setDefaultLabels({ service: options.service });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  get http(): HttpMetrics {
    if (!this.httpMetrics) {
      const labelNames = ['method', 'route', 'status'] as const;
      const requests = new Counter({
        name: 'trawl_http_requests_total',
        help: 'HTTP requests served, by method, route pattern and status code.',
        labelNames,
        registers: [this.registry],
      });
      const duration = new Histogram({
        name: 'trawl_http_request_duration_seconds',
        help: 'HTTP request latency, by method, route pattern and status code.',
        labelNames,
        buckets: LATENCY_BUCKETS,
        registers: [this.registry],
      });
      this.httpMetrics = {
        requests,
        duration,
        observe: ({ method, route, status }, seconds) => {
          const labels = { method, route, status: String(status) };
          requests.inc(labels);
          duration.observe(labels, seconds);
        },
      };
    }
    return this.httpMetrics;
  }

  get nats(): NatsMetrics {
    if (!this.natsMetrics) {
      const duration = new Histogram({
        name: 'trawl_nats_request_duration_seconds',
        help: 'NATS request/reply latency seen by the requester, by subject and outcome.',
        labelNames: ['subject', 'outcome'] as const,
        buckets: LATENCY_BUCKETS,
        registers: [this.registry],
      });
      this.natsMetrics = {
        duration,
        observer: (subject, outcome, ms) => duration.observe({ subject, outcome }, ms / 1000),
      };
    }
    return this.natsMetrics;
  }

  get queue(): QueueMetrics {
    if (!this.queueMetrics) {
      const readers: QueueDepthReader[] = [];
      const depth = new Gauge({
        name: 'trawl_queue_depth',
        help: 'Jobs in each BullMQ queue by state (waiting, active, delayed, waiting-children, failed, completed).',
        labelNames: ['queue', 'state'] as const,
        registers: [this.registry],
        async collect() {
          for (const read of readers) {
            const counts = await read();
            for (const [queue, states] of Object.entries(counts)) {
              for (const [state, n] of Object.entries(states)) this.set({ queue, state }, n ?? 0);
            }
          }
        },
      });
      const jobs = new Counter({
        name: 'trawl_queue_jobs_total',
        help: 'Job attempts that ended, by queue and outcome (completed, failed for good, retried, stalled, held: met an outage, put back without using an attempt).',
        labelNames: ['queue', 'outcome'] as const,
        registers: [this.registry],
      });
      const fleetPaused = new Gauge({
        name: 'trawl_queue_fleet_paused',
        help: 'Whether this replica holds the queue (1) because no extractor serves it (its fleet is away), or takes its jobs (0).',
        labelNames: ['queue'] as const,
        registers: [this.registry],
      });
      this.queueMetrics = { depth, jobs, fleetPaused, addDepthReader: (reader) => void readers.push(reader) };
    }
    return this.queueMetrics;
  }

  get browserPool(): BrowserPoolMetrics {
    if (!this.browserPoolMetrics) {
      const registers = [this.registry];
      this.browserPoolMetrics = {
        browsers: new Gauge({ name: 'trawl_browser_pool_browsers', help: 'Browsers open in the pool.', registers }),
        busyPages: new Gauge({ name: 'trawl_browser_pool_busy_pages', help: 'Pages in use.', registers }),
        waitQueue: new Gauge({
          name: 'trawl_browser_pool_wait_queue_length',
          help: 'Requests waiting for a free page.',
          registers,
        }),
      };
    }
    return this.browserPoolMetrics;
  }

  get natsServer(): NatsServerMetrics {
    if (!this.natsServerMetrics) {
      let read: (() => NatsServerTotals) | undefined;
      let seen: NatsServerTotals = { refusedBusy: 0, abandoned: 0 };
      const requests = new Counter({
        name: 'trawl_nats_server_requests_total',
        help: 'NATS requests this replica did not run to the end, by outcome: refused_busy (its in-flight cap was reached; the caller sent it to another replica) or abandoned (its caller stopped waiting and said so).',
        labelNames: ['outcome'] as const,
        registers: [this.registry],
        collect() {
          if (!read) return;
          const now = read();
          this.inc({ outcome: 'refused_busy' }, Math.max(0, now.refusedBusy - seen.refusedBusy));
          this.inc({ outcome: 'abandoned' }, Math.max(0, now.abandoned - seen.abandoned));
          seen = { ...now };
        },
      });
      this.natsServerMetrics = { requests, observe: (reader) => (read = reader) };
    }
    return this.natsServerMetrics;
  }

  get proxy(): ProxyMetrics {
    if (!this.proxyMetrics) {
      const registers = [this.registry];
      this.proxyMetrics = {
        requests: new Counter({
          name: 'trawl_proxy_requests_total',
          help: 'Requests and tunnels sent through an upstream proxy, by proxy (host:port) and outcome.',
          labelNames: ['proxy', 'outcome'] as const,
          registers,
        }),
        cooling: new Gauge({
          name: 'trawl_proxy_cooling',
          help: 'Whether an upstream proxy is cooling down after a block (1) or in use (0), by proxy (host:port).',
          labelNames: ['proxy'] as const,
          registers,
        }),
      };
    }
    return this.proxyMetrics;
  }

  get webhook(): WebhookMetrics {
    if (!this.webhookMetrics) {
      this.webhookMetrics = {
        deliveries: new Counter({
          name: 'trawl_webhook_deliveries_total',
          help: 'Webhook delivery attempts by outcome (delivered, retry scheduled, failed for good).',
          labelNames: ['outcome'] as const,
          registers: [this.registry],
        }),
        duration: new Histogram({
          name: 'trawl_webhook_delivery_duration_seconds',
          help: 'Webhook POST latency by outcome.',
          labelNames: ['outcome'] as const,
          buckets: LATENCY_BUCKETS,
          registers: [this.registry],
        }),
      };
    }
    return this.webhookMetrics;
  }

  get parse(): ParseMetrics {
    if (!this.parseMetrics) {
      const registers = [this.registry];
      const fieldPresent = new Counter({
        name: 'trawl_parse_field_present_total',
        help: 'Parsed pages that filled the field, by parser and field (divide by trawl_parse_pages_total for a rate).',
        labelNames: ['parser', 'field'] as const,
        registers,
      });
      const pages = new Counter({
        name: 'trawl_parse_pages_total',
        help: 'Pages parsed into a record, by parser.',
        labelNames: ['parser'] as const,
        registers,
      });
      const unrecognised = new Counter({
        name: 'trawl_parse_unrecognised_total',
        help: 'Upstream pages no parser recognised (PAGE_NOT_RECOGNISED), by upstream host (a known upstream, else other).',
        labelNames: ['upstream'] as const,
        registers,
      });
      this.parseMetrics = {
        fieldPresent,
        pages,
        unrecognised,
        observer: (classify) => ({
          parsed: (record) => {
            const page = classify(record);
            if (!page) return;
            pages.inc({ parser: page.parser });
            for (const [field, present] of Object.entries(page.presence)) {
              // Every field gets a series from the first page on, so a rate can drop to 0 rather than vanish.
              fieldPresent.inc({ parser: page.parser, field }, present ? 1 : 0);
            }
          },
          unrecognised: (upstream) => unrecognised.inc({ upstream }),
        }),
      };
    }
    return this.parseMetrics;
  }
}
