/**
 * Every NATS subject Trawl uses. A subject names `<domain>.<verb>.v<N>`; a breaking change to its payload is a new
 * subject, never an edit of this one. Request/reply subjects are served by a queue group (see QUEUE_GROUPS), so
 * replicas share the load.
 */
export const SUBJECTS = {
  /** Web search by query (POST /extract/search). Served by extractor-search. */
  searchWeb: 'extract.search.v1',
  /** Map-places search by query (POST /extract/search/maps). Served by extractor-maps. */
  searchMaps: 'extract.maps.v1',
  /** Single URL of type `mp-maps` (a place page). Served by extractor-maps. */
  extractPlace: 'extract.place.v1',
  /** Single URL of type `mp-search` (a maps search page). Served by extractor-maps. */
  extractMapsSearchUrl: 'extract.maps-url.v1',
  /** Single URL of type `retail` (a product page). Served by extractor-retail. */
  extractRetail: 'extract.retail.v1',
  /** Page scrape (POST /scrape, and POST /extract with type `scrape`). Served by extractor-scrape. */
  scrapePage: 'scrape.page.v1',
  /**
   * One page rendered in Chromium for an upstream extractor (search, maps, retail in `browser`/`auto`): the browser
   * fleet. Served by extractor-scrape (its pool, its SSRF guard); see docs/decisions/0005-one-browser-fleet.md.
   */
  renderPage: 'render.page.v1',
  /** Batch submission: creates BullMQ jobs, replies with the job objects. Served by task-service. */
  taskSubmit: 'task.submit.v1',
  /** Task lookup by id. Served by task-service. */
  taskGet: 'task.get.v1',
  /**
   * Cancel a task by id (DELETE /extractTask/{jobId}): a waiting task never runs, an active one's result is
   * discarded, a batch's queries are cancelled with it; the outcome is `failed` with TASK_CANCELLED. Served by
   * task-service; replies the task record.
   */
  taskCancel: 'task.cancel.v1',
  /** Start a crawl (POST /crawl): replies its id at once; task-service's crawl workers run it. */
  crawlStart: 'crawl.start.v1',
  /** A crawl's status and one page of its documents (GET /crawl/{id}). Served by task-service. */
  crawlGet: 'crawl.get.v1',
  /** Stop a crawl (DELETE /crawl/{id}): pages in flight end, no new page starts. Served by task-service. */
  crawlCancel: 'crawl.cancel.v1',
  /** A site's URLs from its sitemaps and links (POST /map). Served by task-service. */
  mapSite: 'map.site.v1',
  /**
   * A crawl's documents, one message per page, subject `crawl.document.v1.<crawl id>`. JetStream (CRAWL_DOCUMENTS),
   * published and read back by task-service. This is the prefix; `crawlDocumentSubject(id)` names one crawl's.
   */
  crawlDocument: 'crawl.document.v1',
  /** A task reached its final state. JetStream, published by task-service, consumed by webhook-dispatcher. */
  taskFinished: 'task.finished.v1',
  /** A task outcome whose webhook delivery gave up. JetStream, published and replayed by webhook-dispatcher. */
  taskDeliveryFailed: 'task.delivery-failed.v1',
} as const;

export type Subject = (typeof SUBJECTS)[keyof typeof SUBJECTS];

/** NATS queue groups: one per service kind, so each message is handled by one replica of that kind. */
export const QUEUE_GROUPS = {
  extractorSearch: 'extractor-search',
  extractorMaps: 'extractor-maps',
  extractorRetail: 'extractor-retail',
  extractorScrape: 'extractor-scrape',
  taskService: 'task-service',
} as const;

/** JetStream resources: the stream that keeps final task outcomes until the dispatcher has delivered them. */
export const STREAMS = {
  taskOutcomes: { name: 'TASK_OUTCOMES', subjects: [SUBJECTS.taskFinished] },
  /** Dead letters: outcomes the dispatcher could not deliver; listed and replayed by its CLI. */
  webhookDeadLetters: { name: 'WEBHOOK_DEAD_LETTERS', subjects: [SUBJECTS.taskDeliveryFailed] },
  /** Crawls' documents, bounded by bytes and age (docs/decisions/0026-crawl-and-map.md). */
  crawlDocuments: { name: 'CRAWL_DOCUMENTS', subjects: [`${SUBJECTS.crawlDocument}.>`] },
} as const;

/** Durable JetStream consumer names. */
export const CONSUMERS = {
  webhookDispatcher: 'webhook-dispatcher',
} as const;

/** The JetStream subject of one crawl's documents. */
export function crawlDocumentSubject(crawlId: string): string {
  return `${SUBJECTS.crawlDocument}.${crawlId}`;
}
