// Generated from openapi.json by `npm run openapi` (apps/gateway/src/openapi/client-types.renderer.ts). Do not edit.

export type ActiveCrawl = {
  createdAt: string;
  id: string;
  options: Record<string, unknown>;
  url: string;
};

export type ActiveCrawls = {
  crawls: ActiveCrawl[];
};

export type BatchJobOpts = {
  attempts: number;
  backoff: {
    delay: number;
    type: string;
  };
  removeOnComplete: number;
  removeOnFail: number;
};

export type CrawlDocument = {
  actions?: {
    javascriptReturns: Array<{
      type: string;
      value: unknown;
    }>;
    scrapes: Array<{
      html: string;
      url: string;
    }>;
    screenshots: string[];
  };
  edgeId: string;
  html?: string;
  json?: Record<string, unknown>;
  links?: string[];
  markdown?: string;
  metadata: {
    adsBlocked?: number;
    canonical?: string;
    contentType: string | null;
    description?: string;
    engine: "browser" | "http";
    favicon?: string;
    keywords?: string;
    language?: string;
    ogAudio?: string;
    ogDescription?: string;
    ogDeterminer?: string;
    ogImage?: string;
    ogLocale?: string;
    ogSiteName?: string;
    ogTitle?: string;
    ogType?: string;
    ogUrl?: string;
    ogVideo?: string;
    retryAfter?: string;
    robots?: string;
    sourceURL: string;
    statusCode: number;
    title: string;
    url: string;
  };
  rawHtml?: string;
  rawStatus: number;
  screenshot?: string;
  sourceURL: string;
  status: number;
  summary?: string;
  taskId: string;
};

export type CrawlError = {
  code: string;
  error: string;
  timestamp: string;
  url: string;
};

export type CrawlErrors = {
  errors: CrawlError[];
  robotsBlocked: string[];
};

export type CrawlPlan = {
  options: CrawlPlanOptions;
  url: string;
  warnings: string[];
};

export type CrawlPlanBody = {
  prompt: string;
  url: string;
};

export type CrawlPlanOptions = {
  allowExternalLinks?: boolean;
  allowSubdomains?: boolean;
  delay?: number;
  excludePaths?: string[];
  ignoreQueryParameters?: boolean;
  includePaths?: string[];
  limit?: number;
  maxDepth?: number;
  sitemap?: "include" | "skip" | "only";
};

export type CrawlRequest = {
  allowExternalLinks?: boolean;
  allowSubdomains?: boolean;
  delay?: number;
  excludePaths?: string[];
  ignoreQueryParameters?: boolean;
  includePaths?: string[];
  limit?: number;
  maxConcurrency?: number;
  maxDepth?: number;
  prompt?: string;
  scrapeOptions?: CrawlScrapeOptions;
  sitemap?: "include" | "skip" | "only";
  url: string;
  webhook?: string;
  webhookOptions?: CrawlWebhookOptions;
};

export type CrawlScrapeOptions = {
  actions?: Array<{
    all?: boolean;
    direction?: "up" | "down";
    fullPage?: boolean;
    key?: string;
    milliseconds?: number;
    quality?: number;
    script?: string;
    selector?: string;
    text?: string;
    type: "wait" | "click" | "write" | "press" | "scroll" | "screenshot" | "scrape" | "executeJavascript";
  }>;
  blockAds?: boolean;
  engine?: "http" | "browser" | "auto";
  excludeTags?: string[];
  formats?: Array<"markdown" | "html" | "rawHtml" | "links" | "screenshot" | "screenshot@fullPage" | {
    fullPage?: boolean;
    quality?: number;
    type: "screenshot";
    viewport?: {
      height: number;
      width: number;
    };
  }>;
  headers?: Record<string, string>;
  headersEverywhere?: boolean;
  includeTags?: string[];
  location?: {
    country?: string;
    languages?: string[];
  };
  mobile?: boolean;
  onlyMainContent?: boolean;
  timeout?: number;
  waitFor?: number;
};

export type CrawlStartReply = {
  id: string;
  plan?: CrawlPlan;
};

export type CrawlStatus = {
  completed: number;
  data: CrawlDocument[];
  documents: number;
  error?: {
    code: string;
    message: string;
  };
  id: string;
  next: string | null;
  status: "scraping" | "completed" | "failed" | "cancelled";
  total: number;
};

export type CrawlWebhookOptions = {
  events?: Array<"started" | "page" | "completed" | "failed">;
  format?: "trawl" | "firecrawl";
  headers?: Record<string, string>;
  metadata?: Record<string, unknown>;
};

export type ErrorData = {
  error: "VALIDATION_FAILED" | "MALFORMED_JSON" | "JSON_TOO_DEEP" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "TASK_NOT_FOUND" | "TASK_FINISHED" | "TASK_CANCELLED" | "IDEMPOTENCY_KEY_REUSED" | "IDEMPOTENCY_KEY_IN_PROGRESS" | "METHOD_NOT_ALLOWED" | "PAYLOAD_TOO_LARGE" | "URI_TOO_LONG" | "UNSUPPORTED_MEDIA_TYPE" | "HEADERS_TOO_LARGE" | "URL_NOT_ALLOWED" | "RATE_LIMITED" | "PAGE_NOT_RECOGNISED" | "UNSUPPORTED_CONTENT_TYPE" | "CONTENT_TOO_LARGE" | "PAGE_TOO_COMPLEX" | "UPSTREAM_NOT_FOUND" | "UPSTREAM_ERROR" | "UPSTREAM_BLOCKED" | "UPSTREAM_TIMEOUT" | "SERVICE_UNAVAILABLE" | "OVERLOADED" | "LLM_UNAVAILABLE" | "LLM_ANSWER_INVALID" | "LLM_BUDGET_EXHAUSTED" | "INTERNAL";
  field?: string;
  retryable: boolean;
};

export type ExtractRequest = {
  engine?: "http" | "browser" | "auto";
  maxAge?: number;
  meta?: boolean;
  params?: Record<string, unknown>;
  scrapeOptions?: ScrapeOptions;
  storeInCache?: boolean;
  timeout?: number;
  type: "retail" | "mp-maps" | "mp-search" | "scrape";
  url: string;
};

export type ExtractResponse = ExtractResponse_retail | ExtractResponse_mp_maps | ExtractResponse_mp_search | ExtractResponse_scrape;

export type ExtractResponse_mp_maps = {
  data: PlaceRecord;
  params: {
    params?: Record<string, string | number | boolean>;
    timeout: number;
    type: "mp-maps";
    url: string;
  };
  stacktrace: string;
  status: string;
  taskId: string;
};

export type ExtractResponse_mp_search = {
  data: MapsSearchData;
  params: {
    params?: Record<string, string | number | boolean>;
    timeout: number;
    type: "mp-search";
    url: string;
  };
  stacktrace: string;
  status: string;
  taskId: string;
};

export type ExtractResponse_retail = {
  data: RetailRecord;
  params: {
    params?: Record<string, string | number | boolean>;
    timeout: number;
    type: "retail";
    url: string;
  };
  stacktrace: string;
  status: string;
  taskId: string;
};

export type ExtractResponse_scrape = {
  data: ScrapeResult;
  params: {
    params?: Record<string, string | number | boolean>;
    timeout: number;
    type: "scrape";
    url: string;
  };
  stacktrace: string;
  status: string;
  taskId: string;
};

export type KeyQueueJobs = {
  lastSuccessAt: string | null;
  max: number;
  outstanding: number;
  running: number;
  waiting: number;
};

export type KeyQueueUsage = {
  jobs: KeyQueueJobs;
  requests: {
    inFlight: number;
    max: number;
  };
};

export type LlmTokensPeriod = {
  calls: number;
  completionTokens: number;
  endDate: string;
  estimatedCalls: number;
  period: string;
  promptTokens: number;
  startDate: string;
  totalTokens: number;
};

export type LlmTokensUsage = {
  budget: number;
  current: LlmTokensPeriod;
  periods: LlmTokensPeriod[];
  remaining: number | null;
};

export type MapLink = {
  title?: string;
  url: string;
};

export type MapRequest = {
  includeSubdomains?: boolean;
  limit?: number;
  search?: string;
  sitemap?: "include" | "skip" | "only";
  timeout?: number;
  url: string;
};

export type MapSiteReply = {
  links: MapLink[];
};

export type MapsBatchJob = {
  attemptsMade: number;
  attemptsStarted: number;
  data: MapsBatchJobData;
  id: string;
  name: string;
  opts: BatchJobOpts;
  priority: number;
  progress: number;
  queueQualifiedName: string;
  returnvalue: unknown;
  stacktrace: string[] | null;
  timestamp: number;
};

export type MapsBatchJobData = {
  engine?: "http" | "browser" | "auto";
  hl: string;
  kind: "maps";
  ll: string;
  meta?: boolean;
  num: number;
  querys: string[];
  start: number;
  timeout: number;
  webhook: string;
};

export type MapsBatchRequest = {
  engine?: "http" | "browser" | "auto";
  hl?: string;
  ll?: string;
  meta?: boolean;
  num?: number;
  querys: string[];
  start?: number;
  timeout?: number;
  webhook: string;
};

export type MapsPlaceItem = {
  about: string;
  address: string;
  borough: string;
  cid: string;
  city: string;
  claimed: boolean;
  country: string;
  latitude: number | null;
  longitude: number | null;
  mp_category: string[];
  mp_description: string;
  mp_hours: Array<{
    day: string;
    times: string[];
  }>;
  mp_image: string;
  mp_maps_url: string;
  mp_orders_urls: string[];
  mp_phone: string | null;
  mp_price_range_dollar_sign: string;
  mp_reviews_url: string;
  name: string;
  number_of_reviews: number;
  order_online_url: string | null;
  place_id: string;
  postal_code: string;
  rating: number | null;
  state: string;
  street_addr: string;
  street_addr_supplement: string;
  website: string;
};

export type MapsSearchData = {
  meta?: ResultMeta;
  organicResults: MapsPlaceItem[];
  searchParameters: {
    device: string;
    engine: string;
    gl: string;
    hl: string;
    latitude: number | null;
    longitude: number | null;
    mp_domain: string;
    q: string;
    type: string;
    zoom: string;
  };
  search_metadata: {
    created_at: string;
    htmlUrl: string | null;
    id: string;
    jsonUrl: string | null;
    requestUrl: string;
    status: string;
  };
};

export type MapsSearchRequest = {
  engine?: "http" | "browser" | "auto";
  hl?: string;
  ll?: string;
  maxAge?: number;
  meta?: boolean;
  num?: number;
  q: string;
  start?: number;
  storeInCache?: boolean;
  timeout?: number;
};

export type MapsSearchResponse = {
  data: MapsSearchData;
  finishedOn: string;
  processedOn: string;
  stacktrace: string[] | null;
  status: string;
  taskId: string;
  totalResults: number;
};

export type Money = {
  currency: string;
  raw: string;
  value: number;
};

export type PlaceRecord = {
  about: string;
  cid?: string;
  ctx_city: string;
  ctx_country: string;
  ctx_state: string;
  latitude: number | null;
  longitude: number | null;
  meta?: ResultMeta;
  mp_address: string;
  mp_category: string[];
  mp_city: string;
  mp_claimed: boolean;
  mp_company_name: string;
  mp_country_name: string;
  mp_description: string;
  mp_hours: Array<{
    day: string;
    times: string[];
  }>;
  mp_image: string | null;
  mp_maps_url: string;
  mp_menu_and_appointment_urls: string[];
  mp_orders_urls: string[];
  mp_permanently_closed: boolean;
  mp_phone: string | null;
  mp_place_id: string;
  mp_price_range: string | null;
  mp_price_range_dollar_sign: string | null;
  mp_rating: number | null;
  mp_reviews_count: number;
  mp_reviews_url: string;
  mp_state_abbr: string;
  mp_state_name: string;
  mp_street_address: string;
  mp_temporarily_closed: boolean;
  mp_website: string;
  mp_zip_code: string;
  optional_popular_times: unknown;
  optional_questions_and_answers: unknown;
  optional_review_summary: unknown;
};

export type ResultMeta = {
  emptyFields: string[];
  parser: "search" | "maps-search" | "maps-place" | "retail";
  parserVersion: string;
};

export type RetailRecord = {
  asin: string | null;
  availability: string | null;
  best_sellers_rank: Array<{
    category: string;
    rank: number;
  }>;
  bought_past_month: string | null;
  brand: string | null;
  categories: string[];
  date_first_available: string | null;
  description: string | null;
  features: string[];
  images: string[];
  in_stock: boolean | null;
  list_price: Money | null;
  main_image: string | null;
  meta?: ResultMeta;
  price: Money | null;
  rating: number | null;
  reviews_count: number | null;
  seller: string | null;
  specifications: Record<string, string>;
  title: string;
  url: string;
  variants: Array<{
    asin: string;
    label: string;
  }>;
};

export type ScrapeOptions = {
  actions?: Array<{
    all?: boolean;
    direction?: "up" | "down";
    fullPage?: boolean;
    key?: string;
    milliseconds?: number;
    quality?: number;
    script?: string;
    selector?: string;
    text?: string;
    type: "wait" | "click" | "write" | "press" | "scroll" | "screenshot" | "scrape" | "executeJavascript";
  }>;
  blockAds?: boolean;
  excludeTags?: string[];
  formats?: Array<"markdown" | "html" | "rawHtml" | "links" | "screenshot" | "screenshot@fullPage" | "summary" | {
    prompt?: string;
    schema?: Record<string, unknown>;
    type: "json";
  } | {
    type: "summary";
  } | {
    fullPage?: boolean;
    quality?: number;
    type: "screenshot";
    viewport?: {
      height: number;
      width: number;
    };
  }>;
  headers?: Record<string, string>;
  headersEverywhere?: boolean;
  includeTags?: string[];
  location?: {
    country?: string;
    languages?: string[];
  };
  mobile?: boolean;
  onlyMainContent?: boolean;
  waitFor?: number;
};

export type ScrapeRequest = {
  actions?: Array<{
    all?: boolean;
    direction?: "up" | "down";
    fullPage?: boolean;
    key?: string;
    milliseconds?: number;
    quality?: number;
    script?: string;
    selector?: string;
    text?: string;
    type: "wait" | "click" | "write" | "press" | "scroll" | "screenshot" | "scrape" | "executeJavascript";
  }>;
  blockAds?: boolean;
  engine?: "http" | "browser" | "auto";
  excludeTags?: string[];
  formats?: Array<"markdown" | "html" | "rawHtml" | "links" | "screenshot" | "screenshot@fullPage" | "summary" | {
    prompt?: string;
    schema?: Record<string, unknown>;
    type: "json";
  } | {
    type: "summary";
  } | {
    fullPage?: boolean;
    quality?: number;
    type: "screenshot";
    viewport?: {
      height: number;
      width: number;
    };
  }>;
  headers?: Record<string, string>;
  headersEverywhere?: boolean;
  includeTags?: string[];
  location?: {
    country?: string;
    languages?: string[];
  };
  maxAge?: number;
  mobile?: boolean;
  onlyMainContent?: boolean;
  storeInCache?: boolean;
  timeout?: number;
  url: string;
  waitFor?: number;
};

export type ScrapeResult = {
  actions?: {
    javascriptReturns: Array<{
      type: string;
      value: unknown;
    }>;
    scrapes: Array<{
      html: string;
      url: string;
    }>;
    screenshots: string[];
  };
  edgeId: string;
  html?: string;
  json?: Record<string, unknown>;
  links?: string[];
  markdown?: string;
  metadata: {
    adsBlocked?: number;
    canonical?: string;
    contentType: string | null;
    description?: string;
    engine: "browser" | "http";
    favicon?: string;
    keywords?: string;
    language?: string;
    ogAudio?: string;
    ogDescription?: string;
    ogDeterminer?: string;
    ogImage?: string;
    ogLocale?: string;
    ogSiteName?: string;
    ogTitle?: string;
    ogType?: string;
    ogUrl?: string;
    ogVideo?: string;
    retryAfter?: string;
    robots?: string;
    sourceURL?: string;
    statusCode?: number;
    title: string;
    url: string;
  };
  rawHtml?: string;
  rawStatus: number;
  screenshot?: string;
  sourceURL: string;
  status: number;
  summary?: string;
  taskId: string;
};

export type SearchBatchJob = {
  attemptsMade: number;
  attemptsStarted: number;
  data: SearchBatchJobData;
  id: string;
  name: string;
  opts: BatchJobOpts;
  priority: number;
  progress: number;
  queueQualifiedName: string;
  returnvalue: unknown;
  stacktrace: string[] | null;
  timestamp: number;
};

export type SearchBatchJobData = {
  cr?: string;
  engine?: "http" | "browser" | "auto";
  gl: string;
  hl: string;
  kind: "search";
  lr?: string;
  meta?: boolean;
  num: number;
  querys: string[];
  start: number;
  timeout: number;
  webhook: string;
};

export type SearchBatchRequest = {
  cr?: string;
  engine?: "http" | "browser" | "auto";
  gl?: string;
  hl?: string;
  lr?: string;
  meta?: boolean;
  num?: number;
  querys: string[];
  start?: number;
  timeout?: number;
  webhook: string;
};

export type TaskRecord = {
  attemptsMade: number;
  data: unknown;
  error?: WireError | null;
  finishedOn: number | null;
  params: Record<string, unknown>;
  processedOn: number | null;
  progress: number;
  stacktrace: string[];
  status: "completed" | "failed" | "delayed" | "active" | "waiting" | "waiting-children" | "unknown";
  taskId: string;
};

export type UrlBatchJob = {
  attemptsMade: number;
  attemptsStarted: number;
  data: UrlJobData;
  id: string;
  name: string;
  opts: BatchJobOpts;
  priority: number;
  progress: number;
  queueQualifiedName: string;
  returnvalue: unknown;
  stacktrace: string[] | null;
  timestamp: number;
};

export type UrlBatchRequest = {
  engine?: "http" | "browser" | "auto";
  meta?: boolean;
  params?: Record<string, unknown>;
  scrapeOptions?: ScrapeOptions;
  timeout?: number;
  type: "retail" | "mp-maps" | "mp-search" | "scrape";
  urls: string[];
  webhook: string;
  webhookOptions?: UrlBatchWebhookOptions;
};

export type UrlBatchWebhookOptions = {
  batchId: string;
  events?: Array<"started" | "page" | "completed" | "failed">;
  format?: "trawl" | "firecrawl";
  headers?: Record<string, string>;
  metadata?: Record<string, unknown>;
};

export type UrlJobData = {
  engine?: "http" | "browser" | "auto";
  kind: "url";
  meta?: boolean;
  params?: Record<string, string | number | boolean>;
  scrapeOptions?: Record<string, unknown>;
  timeout: number;
  type: "retail" | "mp-maps" | "mp-search" | "scrape";
  url: string;
  webhook?: string;
};

export type WebSearchRequest = {
  cr?: string;
  engine?: "http" | "browser" | "auto";
  gl?: string;
  hl?: string;
  location?: string;
  lr?: string;
  maxAge?: number;
  meta?: boolean;
  num?: number;
  q: string;
  start?: number;
  storeInCache?: boolean;
  tbs?: string;
  timeout?: number;
};

export type WebSearchResult = {
  ads?: Array<{
    displayLink: string;
    link: string;
    position: number;
    snippet: string;
    title: string;
  }>;
  aiOverview?: {
    sources: Array<{
      link: string;
      title: string;
    }>;
    text: string;
  } | null;
  knowledgePanel: {
    attributes: Record<string, string>;
    description: string;
    image: string | null;
    source: {
      link: string;
      name: string;
    } | null;
    title: string;
    type: string;
  } | null;
  localResults?: Array<{
    address: string;
    position: number;
    rating: number | null;
    reviews: number | null;
    title: string;
    type: string;
  }>;
  location: {
    htmlLang: string;
  };
  meta?: ResultMeta;
  peopleAlsoAsk: Array<{
    answer: string;
    question: string;
    title: string;
    url: string | null;
  }>;
  relatedSearches: Array<{
    query: string;
  }>;
  results: Array<{
    date: string;
    displayLink: string;
    domain: string;
    favicon: string;
    link: string;
    realPosition: number;
    sitelinks: {
      inline: Array<{
        link: string;
        snippet: string;
        title: string;
      }>;
      table: Array<{
        link: string;
        snippet: string;
        title: string;
      }>;
    };
    snippet: string;
    snippetHighlightedWords: string[];
    source: string;
    title: string;
  }>;
  topStories?: Array<{
    date: string;
    link: string;
    source: string;
    title: string;
  }>;
};

export type WebhookPayload = {
  attemptsMade: number;
  data: unknown;
  error?: WireError | null;
  event: "task.completed" | "task.failed";
  finishedOn: number | null;
  params: Record<string, unknown>;
  processedOn: number | null;
  progress: number;
  stacktrace: string[];
  status: "completed" | "failed" | "delayed" | "active" | "waiting" | "waiting-children" | "unknown";
  taskId: string;
};

export type WireError = {
  code: "VALIDATION_FAILED" | "MALFORMED_JSON" | "JSON_TOO_DEEP" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "TASK_NOT_FOUND" | "TASK_FINISHED" | "TASK_CANCELLED" | "IDEMPOTENCY_KEY_REUSED" | "IDEMPOTENCY_KEY_IN_PROGRESS" | "METHOD_NOT_ALLOWED" | "PAYLOAD_TOO_LARGE" | "URI_TOO_LONG" | "UNSUPPORTED_MEDIA_TYPE" | "HEADERS_TOO_LARGE" | "URL_NOT_ALLOWED" | "RATE_LIMITED" | "PAGE_NOT_RECOGNISED" | "UNSUPPORTED_CONTENT_TYPE" | "CONTENT_TOO_LARGE" | "PAGE_TOO_COMPLEX" | "UPSTREAM_NOT_FOUND" | "UPSTREAM_ERROR" | "UPSTREAM_BLOCKED" | "UPSTREAM_TIMEOUT" | "SERVICE_UNAVAILABLE" | "OVERLOADED" | "LLM_UNAVAILABLE" | "LLM_ANSWER_INVALID" | "LLM_BUDGET_EXHAUSTED" | "INTERNAL";
  field?: string;
  message: string;
  retryable: boolean;
};
