import { ArrayNotEmpty, IsArray, IsBoolean, IsIn, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import {
  EXTRACT_SCRAPE_FORMATS,
  SCRAPE_ENGINES,
  SCRAPE_FORMATS,
  type ScrapeEngine,
  type ScrapeFormat,
} from '@trawl/contracts';
import { NatsServiceEnv } from './base.env.js';
import { EnvFlag, EnvList } from './env-value.transforms.js';
import { withRedisEnv } from './redis.env.js';

/** Redis of the task-service when no topology variable is set. */
export const TASK_SERVICE_DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The task-service's variables; Redis holds the BullMQ queues (TASK_SERVICE_DEFAULT_REDIS_URL when none is set). */
export class TaskServiceEnv extends withRedisEnv(NatsServiceEnv) {
  /**
   * Key of the queue dashboard at /admin/queues on the ops server (METRICS_PORT): header x-admin-key, or the basic-auth
   * password. Empty: not mounted.
   */
  @IsString()
  @Matches(/^(\S{16,})?$/, { message: 'ADMIN_API_KEY must be at least 16 characters without spaces, or empty' })
  ADMIN_API_KEY: string = '';

  /** `true` (default): the queue dashboard only shows queues and jobs; `false` lets it retry, remove, pause, clean. */
  @EnvFlag()
  @IsBoolean({ message: 'BULL_BOARD_READ_ONLY must be true or false' })
  BULL_BOARD_READ_ONLY: boolean = true;

  /** Run the queue workers in this process (false: submission and lookup only). */
  @EnvFlag()
  @IsBoolean({ message: 'TASK_WORKERS_ENABLED must be true or false' })
  TASK_WORKERS_ENABLED: boolean = true;

  /** Jobs processed at once per worker, per queue. */
  @IsInt()
  @Min(1)
  @Max(1000)
  TASK_CONCURRENCY_BATCH: number = 10;

  @IsInt()
  @Min(1)
  @Max(1000)
  TASK_CONCURRENCY_MAPS: number = 8;

  @IsInt()
  @Min(1)
  @Max(1000)
  TASK_CONCURRENCY_SEARCH: number = 8;

  @IsInt()
  @Min(1)
  @Max(1000)
  TASK_CONCURRENCY_RETAIL: number = 8;

  @IsInt()
  @Min(1)
  @Max(1000)
  TASK_CONCURRENCY_MP_MAPS: number = 8;

  @IsInt()
  @Min(1)
  @Max(1000)
  TASK_CONCURRENCY_MP_SEARCH: number = 8;

  @IsInt()
  @Min(1)
  @Max(1000)
  TASK_CONCURRENCY_SCRAPE: number = 8;

  /** A job's lock lasts this long and is renewed while it runs; a dead worker's job is taken back after it. */
  @IsInt()
  @Min(1000)
  TASK_LOCK_DURATION_MS: number = 30_000;

  /** How often workers look for stalled jobs (held by a worker that died). */
  @IsInt()
  @Min(1000)
  TASK_STALLED_INTERVAL_MS: number = 30_000;

  /** How many times a job may stall before it fails. */
  @IsInt()
  @Min(0)
  TASK_MAX_STALLED_COUNT: number = 2;

  /**
   * Most jobs one API key may have queued or running (URL tasks and maps/search batches; a batch's queries count as
   * its one job). A batch that would pass it is refused whole with 429 RATE_LIMITED.
   */
  @IsInt()
  @Min(1)
  @Max(2 ** 21)
  TASK_MAX_OUTSTANDING_PER_KEY: number = 20_000;

  /** Scrape engine asked for URL tasks of type `scrape` (empty: the extractor's default). */
  @IsIn(['', ...SCRAPE_ENGINES])
  TASK_SCRAPE_ENGINE: '' | ScrapeEngine = '';

  /** Formats asked for URL tasks of type `scrape`, comma-separated (markdown, html). */
  @EnvList()
  @IsArray()
  @ArrayNotEmpty({ message: 'TASK_SCRAPE_FORMATS must be markdown, html or both' })
  @IsIn(SCRAPE_FORMATS, {
    each: true,
    message: 'TASK_SCRAPE_FORMATS must be markdown, html or both',
  })
  TASK_SCRAPE_FORMATS: ScrapeFormat[] = [...EXTRACT_SCRAPE_FORMATS];

  /** How often finished jobs are checked for an outcome that was not yet published (and published). */
  @IsInt()
  @Min(100)
  TASK_OUTCOME_SWEEP_INTERVAL_MS: number = 30_000;

  /** JetStream de-duplication window of the outcome stream; also how far back the sweep looks. */
  @IsInt()
  @Min(10_000)
  TASK_OUTCOME_DUPLICATE_WINDOW_MS: number = 60 * 60 * 1000;

  /** How long outcomes are kept in the stream. */
  @IsInt()
  @Min(60_000)
  TASK_OUTCOME_MAX_AGE_MS: number = 7 * 24 * 60 * 60 * 1000;

  /** On shutdown, how long NATS handlers in flight may finish before the connection closes, ms. */
  @IsInt()
  @Min(0)
  TASK_SHUTDOWN_GRACE_MS: number = 10_000;

  /**
   * Longest a task waits for its extractor fleet (no responder on its subject, NATS away) before it fails, once, with
   * SERVICE_UNAVAILABLE. Such waits use none of the task's attempts. Default 15 minutes: a cold start from zero
   * replicas, a rolling update or a NATS failover fits in it many times over.
   */
  @IsInt()
  @Min(0)
  TASK_FLEET_MAX_WAIT_MS: number = 15 * 60 * 1000;

  /** While a fleet is away, how often its subject is probed (the queue resumes within one interval of its return). */
  @IsInt()
  @Min(50)
  @Max(60_000)
  TASK_FLEET_PROBE_INTERVAL_MS: number = 1000;

  /** Crawl pages worked on at once by this replica, over all crawls (ADR 0026). 0: this replica runs no crawl. */
  @IsInt()
  @Min(0)
  @Max(1000)
  CRAWL_CONCURRENCY: number = 8;

  /**
   * Most crawls one API key may have running at once (ADR 0026); a start past it is RATE_LIMITED. The crawl workers
   * take turns between keys, so this bounds the documents a key keeps in flight, not its share. 0: no cap.
   */
  @IsInt()
  @Min(0)
  @Max(10_000)
  CRAWL_MAX_ACTIVE_PER_KEY: number = 10;

  /**
   * Language-model tokens (the `json` and `summary` formats, ADR 0040) one API key may spend per calendar month
   * (UTC). Checked before each call to the model, counted after it. 0: no cap (still counted).
   */
  @IsInt()
  @Min(0)
  @Max(1_000_000_000_000)
  LLM_TOKENS_PER_KEY_PER_MONTH: number = 0;

  /** A crawl page's lease, ms: a page whose replica died is taken again after it (renewed while worked on). */
  @IsInt()
  @Min(500)
  CRAWL_LEASE_MS: number = 60_000;

  /** Leases of one crawl URL before it ends in an error (its worker kept dying or it kept failing retryably). */
  @IsInt()
  @Min(1)
  @Max(20)
  CRAWL_MAX_TRIES: number = 3;

  /** robots.txt product token crawls obey (the group for it, else `*`). */
  @IsString()
  @Matches(/^[A-Za-z_-]{1,64}$/, { message: 'CRAWL_ROBOTS_AGENT must be a robots.txt product token' })
  CRAWL_ROBOTS_AGENT: string = 'Trawl';

  /** Largest robots.txt Crawl-delay honoured, ms. */
  @IsInt()
  @Min(0)
  CRAWL_MAX_CRAWL_DELAY_MS: number = 30_000;

  /** How long an ended crawl's record (status, counters) and its documents are kept, ms. */
  @IsInt()
  @Min(60_000)
  CRAWL_RETENTION_MS: number = 24 * 60 * 60 * 1000;

  /** Most bytes of documents the CRAWL_DOCUMENTS stream keeps over all crawls (the oldest go first). */
  @IsInt()
  @Min(1024 * 1024)
  CRAWL_DOCUMENTS_MAX_BYTES: number = 10 * 1024 * 1024 * 1024;

  /** A pause of a crawl worker with nothing to do, ms. */
  @IsInt()
  @Min(5)
  @Max(10_000)
  CRAWL_IDLE_MS: number = 200;
}
