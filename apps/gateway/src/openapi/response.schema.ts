import {
  CRAWL_STATUSES,
  ERROR_CODES,
  EXTRACT_TYPES,
  RESULT_PARSERS,
  TASK_EVENTS,
  TASK_STATUSES,
  UPSTREAM_ENGINES,
  type BatchJob,
  type BatchJobOpts,
  type CrawlDocument,
  type CrawlStartReply,
  type CrawlStatusResult,
  type MapLink,
  type MapSiteReply,
  type Envelope,
  type ErrorData,
  type ExtractResponse,
  type KnowledgePanel,
  type MapsBatchJobData,
  type MapsPlaceItem,
  type MapsSearchData,
  type MapsSearchResponse,
  type Money,
  type PeopleAlsoAskItem,
  type PlaceRecord,
  type ResultMeta,
  type RetailRecord,
  type ScrapeResult,
  type SearchBatchJobData,
  type TaskRecord,
  type UrlJobData,
  type WebResultItem,
  type WebSearchResult,
  type WireError,
} from '@trawl/contracts';

/**
 * JSON schemas (OpenAPI 3.1, i.e. JSON Schema 2020-12) of everything the API answers: the envelope, each operation's
 * `data`, the error data and the webhook payload. Hand-written in this one place because the shapes are TypeScript
 * interfaces in libs/contracts; `shape<T>()` makes the compiler check that each object schema names exactly the
 * interface's keys, so a field added to a contract without its schema does not compile.
 */
export type JsonSchema = Record<string, unknown>;

const str = (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) });
const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) });
const num = (description?: string): JsonSchema => ({ type: 'number', ...(description ? { description } : {}) });
const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const arr = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const nullable = (schema: JsonSchema): JsonSchema =>
  typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };
const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const anyValue = (description: string): JsonSchema => ({ description });
const described = (schema: JsonSchema, description: string): JsonSchema => ({ ...schema, description });
const stringMap = (): JsonSchema => ({ type: 'object', additionalProperties: { type: 'string' } });
const enumOf = (values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values] });
const dateTime = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
/** Said of the fields a result-cache hit (`maxAge`) answers as they were in the first answer. */
const REPLAYED = ' A result-cache hit (`maxAge`, `X-Trawl-Cache: hit`) answers the stored value, the first answer’s.';

/** An object schema over exactly the keys of T; `optional` lists the keys that may be absent. */
function shape<T>(properties: { [K in keyof Required<T>]: JsonSchema }, optional: (keyof T)[] = []): JsonSchema {
  const keys = Object.keys(properties).sort();
  const skip = new Set<string>(optional.map(String));
  return { type: 'object', properties, required: keys.filter((k) => !skip.has(k)) };
}
/** A loose object (extra keys may appear): for records an extractor may enrich. */
function loose(schema: JsonSchema): JsonSchema {
  return { ...schema, additionalProperties: true };
}

const META = ref('ResultMeta');
const resultMeta = shape<ResultMeta>({
  parser: enumOf(RESULT_PARSERS),
  parserVersion: str(),
  emptyFields: arr(str()),
});

const sitelink = shape<{ link: string; snippet: string; title: string }>({ link: str(), snippet: str(), title: str() });
const hours = arr(shape<{ day: string; times: string[] }>({ day: str(), times: arr(str()) }));

const webSearchResult = shape<WebSearchResult>(
  {
    knowledgePanel: nullable(
      shape<KnowledgePanel>({
        title: str(),
        type: str(),
        description: str(),
        source: nullable(shape<{ name: string; link: string }>({ name: str(), link: str() })),
        attributes: stringMap(),
        image: nullable(str()),
      }),
    ),
    location: shape<{ htmlLang: string }>({ htmlLang: str() }),
    peopleAlsoAsk: arr(
      shape<PeopleAlsoAskItem>({ answer: str(), question: str(), title: str(), url: nullable(str()) }),
    ),
    relatedSearches: arr(shape<{ query: string }>({ query: str() })),
    results: arr(
      shape<WebResultItem>({
        date: str(),
        displayLink: str(),
        domain: str(),
        favicon: str(),
        link: str(),
        realPosition: int('1-based position among organic results.'),
        sitelinks: shape<WebResultItem['sitelinks']>({ inline: arr(sitelink), table: arr(sitelink) }),
        snippet: str(),
        snippetHighlightedWords: arr(str()),
        source: str(),
        title: str(),
      }),
    ),
    ads: arr(
      shape<NonNullable<WebSearchResult['ads']>[number]>({
        position: int(),
        title: str(),
        link: str(),
        displayLink: str(),
        snippet: str(),
      }),
    ),
    localResults: arr(
      shape<NonNullable<WebSearchResult['localResults']>[number]>({
        position: int(),
        title: str(),
        rating: nullable(num()),
        reviews: nullable(int()),
        type: str(),
        address: str(),
      }),
    ),
    topStories: arr(
      shape<NonNullable<WebSearchResult['topStories']>[number]>({
        title: str(),
        link: str(),
        source: str(),
        date: str(),
      }),
    ),
    aiOverview: nullable(
      shape<NonNullable<WebSearchResult['aiOverview']>>({
        text: str(),
        sources: arr(shape<{ title: string; link: string }>({ title: str(), link: str() })),
      }),
    ),
    meta: META,
  },
  ['ads', 'localResults', 'topStories', 'aiOverview', 'meta'],
);

const mapsPlaceItem = shape<MapsPlaceItem>({
  name: str(),
  place_id: str(),
  cid: str(),
  country: str(),
  state: str(),
  city: str(),
  borough: str(),
  postal_code: str(),
  address: str(),
  street_addr: str(),
  street_addr_supplement: str(),
  latitude: nullable(num('null when the page does not show it.')),
  longitude: nullable(num('null when the page does not show it.')),
  claimed: bool(),
  rating: nullable(num('null when the place shows no rating.')),
  number_of_reviews: int(),
  website: str(),
  mp_phone: nullable(str()),
  mp_category: arr(str()),
  mp_description: str(),
  mp_image: str(),
  mp_maps_url: str(),
  mp_reviews_url: str(),
  mp_price_range_dollar_sign: str(),
  mp_orders_urls: arr(str()),
  order_online_url: nullable(str()),
  mp_hours: hours,
  about: str(),
});

const mapsSearchData = shape<MapsSearchData>(
  {
    organicResults: arr(ref('MapsPlaceItem')),
    searchParameters: shape<MapsSearchData['searchParameters']>({
      engine: str(),
      q: str(),
      device: str(),
      mp_domain: str(),
      hl: str(),
      gl: str(),
      type: str(),
      zoom: str(),
      latitude: nullable(num()),
      longitude: nullable(num()),
    }),
    search_metadata: shape<MapsSearchData['search_metadata']>({
      id: str(),
      status: str(),
      created_at: str(),
      requestUrl: str(),
      jsonUrl: nullable(str()),
      htmlUrl: nullable(str()),
    }),
    meta: META,
  },
  ['meta'],
);

const mapsSearchResponse = shape<MapsSearchResponse>({
  data: ref('MapsSearchData'),
  taskId: str(`The search's id.${REPLAYED}`),
  status: str(),
  finishedOn: dateTime(`When the search finished.${REPLAYED}`),
  processedOn: dateTime(`When the search started.${REPLAYED}`),
  stacktrace: nullable(arr(str())),
  totalResults: int(),
});

const placeRecord = shape<PlaceRecord>(
  {
    about: str(),
    cid: str(),
    ctx_city: str(),
    ctx_country: str(),
    ctx_state: str(),
    mp_address: str(),
    mp_category: arr(str()),
    mp_city: str(),
    mp_claimed: bool(),
    mp_company_name: str(),
    mp_country_name: str(),
    mp_description: str(),
    mp_hours: hours,
    mp_image: nullable(str()),
    mp_maps_url: str(),
    mp_menu_and_appointment_urls: arr(str()),
    mp_orders_urls: arr(str()),
    mp_permanently_closed: bool(),
    mp_phone: nullable(str()),
    mp_place_id: str(),
    mp_price_range: nullable(str()),
    mp_price_range_dollar_sign: nullable(str()),
    mp_rating: nullable(num('null when the place shows no rating.')),
    mp_reviews_count: int(),
    mp_reviews_url: str(),
    mp_state_abbr: str(),
    mp_state_name: str(),
    mp_street_address: str(),
    mp_temporarily_closed: bool(),
    mp_website: str(),
    mp_zip_code: str(),
    latitude: nullable(num('null when the page does not show it.')),
    longitude: nullable(num('null when the page does not show it.')),
    optional_popular_times: anyValue('Popular times, when the page has them.'),
    optional_questions_and_answers: anyValue('Questions and answers, when the page has them.'),
    optional_review_summary: anyValue('Review summary, when the page has one.'),
    meta: META,
  },
  ['cid', 'meta'],
);

const money = shape<Money>({ value: num('Amount, decimal point normalised.'), currency: str('ISO 4217.'), raw: str() });
const retailRecord = shape<RetailRecord>(
  {
    asin: nullable(str('Amazon Standard Identification Number.')),
    url: str('The URL that was extracted.'),
    title: str(),
    brand: nullable(str()),
    price: nullable(ref('Money')),
    list_price: nullable(ref('Money')),
    rating: nullable(num('Average customer rating, 0–5.')),
    reviews_count: nullable(int('Number of customer ratings.')),
    availability: nullable(str('Availability as shown.')),
    in_stock: nullable(bool('Whether it can be bought now; null when the page does not tell.')),
    main_image: nullable(str()),
    images: described(arr(str()), 'Gallery images, largest size available, main image first.'),
    features: described(arr(str()), 'The "About this item" bullet points.'),
    description: nullable(str('Product description text.')),
    categories: described(arr(str()), 'Breadcrumb categories, broadest first.'),
    best_sellers_rank: described(
      arr(shape<{ category: string; rank: number }>({ category: str(), rank: int() })),
      'Best Sellers Rank entries, as listed.',
    ),
    seller: nullable(str('Seller of the buy-box offer.')),
    bought_past_month: nullable(str('The "bought in past month" figure as shown.')),
    date_first_available: nullable(str('YYYY-MM-DD when the page date could be read, else as shown.')),
    variants: described(
      arr(shape<{ asin: string; label: string }>({ asin: str('ASIN of the variation.'), label: str() })),
      'Variations (size, colour, …) including this product.',
    ),
    specifications: described(stringMap(), 'Product information tables as name → value.'),
    meta: META,
  },
  ['meta'],
);

const scrapeResult = shape<ScrapeResult>(
  {
    sourceURL: str(),
    taskId: str(`The scrape's id.${REPLAYED}`),
    edgeId: str(`The instance that served the scrape.${REPLAYED}`),
    status: int('200 when the scrape completed.'),
    rawStatus: int('HTTP status of the scraped page.'),
    html: str('base64 of the percent-encoded markup; present when `html` was asked for.'),
    markdown: str(
      'Present when `markdown` was asked for: the main content (`onlyMainContent`, default true), else the whole page.',
    ),
    rawHtml: str('The document as served; present when `rawHtml` was asked for.'),
    screenshot: str('Present when a screenshot was asked for: a data URL, PNG (JPEG with `quality`).'),
    json: {
      type: 'object',
      additionalProperties: true,
      description:
        'Present when the `json` format was asked for: the object the language model read out of the page, valid ' +
        'against the format’s `schema` (ADR 0029).',
    },
    summary: str('Present when `summary` was asked for: the language model’s summary of the main content (ADR 0029).'),
    actions: shape<NonNullable<ScrapeResult['actions']>>({
      screenshots: arr(str('A data URL per screenshot action.')),
      scrapes: arr(shape<{ url: string; html: string }>({ url: str(), html: str('Rendered HTML at that moment.') })),
      javascriptReturns: arr(
        shape<{ type: string; value: unknown }>({ type: str(), value: anyValue('The JSON value.') }),
      ),
    }),
    links: {
      ...arr(str()),
      description: 'Every link of the page, absolute, once each, in page order; present when `links` was asked for.',
    },
    metadata: loose(
      shape<ScrapeResult['metadata']>(
        {
          title: str(),
          url: str('Final URL after redirects.'),
          sourceURL: str('The URL asked for (absent from results stored before it was added).'),
          statusCode: int('HTTP status of the page (absent from results stored before it was added).'),
          engine: enumOf(['browser', 'http']),
          contentType: nullable(str()),
          adsBlocked: int('Requests to ads and trackers refused (`blockAds`, browser engine).'),
          description: str(),
          language: str("The root element's `lang`."),
          keywords: str(),
          robots: str(),
          canonical: str('The `rel=canonical` link, absolute.'),
          favicon: str(),
          ogTitle: str(),
          ogDescription: str(),
          ogUrl: str(),
          ogImage: str(),
          ogSiteName: str(),
          ogLocale: str(),
          ogType: str(),
          ogAudio: str(),
          ogVideo: str(),
          ogDeterminer: str(),
        },
        [
          'sourceURL',
          'statusCode',
          'description',
          'language',
          'keywords',
          'robots',
          'canonical',
          'favicon',
          'ogTitle',
          'ogDescription',
          'ogUrl',
          'ogImage',
          'ogSiteName',
          'ogLocale',
          'ogType',
          'ogAudio',
          'ogVideo',
          'ogDeterminer',
          'adsBlocked',
        ],
      ),
    ),
  },
  ['html', 'markdown', 'rawHtml', 'links', 'screenshot', 'json', 'summary', 'actions'],
);

const scrapeMetadata = (scrapeResult.properties as Record<keyof ScrapeResult, JsonSchema>).metadata;

/** A crawl's page: what /scrape answers, with the URL the crawl asked for and the page's status always set. */
const crawlDocument = shape<CrawlDocument>(
  {
    ...(scrapeResult.properties as Record<keyof ScrapeResult, JsonSchema>),
    metadata: {
      ...scrapeMetadata,
      properties: {
        ...(scrapeMetadata.properties as Record<string, JsonSchema>),
        sourceURL: str('The URL the crawl found and asked for (normalised).'),
        statusCode: int('HTTP status of the page.'),
      },
      required: [...(scrapeMetadata.required as string[]), 'sourceURL', 'statusCode'].sort(),
    },
  },
  ['html', 'markdown', 'rawHtml', 'links', 'screenshot', 'json', 'summary', 'actions'],
);

const crawlStartReply = shape<CrawlStartReply>({ id: str('The crawl’s id (32 hex digits).') });

const crawlStatus = shape<CrawlStatusResult>(
  {
    id: str(),
    status: enumOf(CRAWL_STATUSES),
    total: int('URLs the crawl took in (at most its limit).'),
    completed: int('URLs settled: scraped, found a duplicate, or failed.'),
    documents: int('Documents stored so far.'),
    error: shape<{ code: string; message: string }>({ code: str(), message: str() }),
    data: arr(ref('CrawlDocument')),
    next: nullable(str('URL of the next page of documents; null when none remain and the crawl has ended.')),
  },
  ['error'],
);

const mapLink = shape<MapLink>({ url: str(), title: str() }, ['title']);
const mapSiteReply = shape<MapSiteReply>({ links: arr(ref('MapLink')) });

const urlParams: JsonSchema = {
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean'] },
};

/** One `/extract` response per `type`; `oneOf` keyed by `params.type`. */
function extractResponseFor(type: (typeof EXTRACT_TYPES)[number], record: string): JsonSchema {
  return shape<ExtractResponse>(
    {
      data: ref(record),
      taskId: str(),
      status: str(),
      params: shape<ExtractResponse['params']>(
        { url: str(), type: { const: type }, timeout: int(), params: urlParams },
        ['params'],
      ),
      stacktrace: str('Empty on success.'),
    },
    [],
  );
}
const EXTRACT_RECORD: Record<(typeof EXTRACT_TYPES)[number], string> = {
  retail: 'RetailRecord',
  'mp-maps': 'PlaceRecord',
  'mp-search': 'MapsSearchData',
  scrape: 'ScrapeResult',
};

const wireError = shape<WireError>({ code: enumOf(ERROR_CODES), message: str(), retryable: bool(), field: str() }, [
  'field',
]);

/** A task's progress: the share of a batch's queries that settled, whole percent (0 for a single URL until it ends). */
const PROGRESS: JsonSchema = {
  type: 'integer',
  minimum: 0,
  maximum: 100,
  description:
    'Percent of a batch’s queries settled, whole, 0-100 (100 once the batch has its result); a URL task stays 0.',
};

const taskRecord = shape<TaskRecord>(
  {
    taskId: str(),
    status: enumOf(TASK_STATUSES),
    params: { type: 'object', description: 'The job data as submitted (see the batch operations).' },
    data: anyValue('The result: null until completed. A maps/search batch: { results, completed, failed }.'),
    error: nullable(ref('WireError')),
    progress: PROGRESS,
    attemptsMade: int(),
    finishedOn: nullable(int('Epoch ms.')),
    processedOn: nullable(int('Epoch ms.')),
    stacktrace: arr(str()),
  },
  ['error'],
);

const batchJobOpts = shape<BatchJobOpts>({
  attempts: int(),
  removeOnComplete: int(),
  removeOnFail: int(),
  backoff: shape<BatchJobOpts['backoff']>({ type: str(), delay: int() }),
});
const batchJob = (data: string): JsonSchema =>
  shape<BatchJob>({
    name: str(),
    data: ref(data),
    opts: ref('BatchJobOpts'),
    id: str('The job id: use it with GET /extractTask/{jobId}; the webhook carries it as taskId.'),
    progress: PROGRESS,
    returnvalue: anyValue('null at submission.'),
    stacktrace: nullable(arr(str())),
    priority: int(
      'Fair share (ADR 0021): the job’s rank among its API key’s outstanding jobs, 1 first (a maps or search batch: ' +
        'its first query’s); lower runs first, so each key’s first job runs before any key’s second.',
    ),
    attemptsStarted: int(),
    attemptsMade: int(),
    timestamp: int('Epoch ms.'),
    queueQualifiedName: str(),
  });

const mapsBatchJobData = shape<MapsBatchJobData>(
  {
    kind: { const: 'maps' },
    querys: arr(str()),
    ll: str(),
    hl: str(),
    start: int(),
    num: int(),
    timeout: int(),
    webhook: str(),
    engine: enumOf(UPSTREAM_ENGINES),
  },
  ['engine'],
);
const searchBatchJobData = shape<SearchBatchJobData>(
  {
    kind: { const: 'search' },
    querys: arr(str()),
    start: int(),
    num: int(),
    hl: str(),
    gl: str(),
    cr: str(),
    lr: str(),
    timeout: int(),
    webhook: str(),
    engine: enumOf(UPSTREAM_ENGINES),
  },
  ['cr', 'lr', 'engine'],
);
const urlJobData = shape<UrlJobData>(
  {
    kind: { const: 'url' },
    url: str('With `params` appended.'),
    timeout: int(),
    webhook: str(),
    type: enumOf(EXTRACT_TYPES),
    params: urlParams,
    engine: enumOf(UPSTREAM_ENGINES),
    scrapeOptions: { type: 'object', description: 'Type `scrape`: the formats and browser options asked for.' },
  },
  ['params', 'engine', 'scrapeOptions'],
);

const errorData = shape<ErrorData>(
  {
    error: enumOf(ERROR_CODES),
    retryable: bool(),
    field: str('The request field the error is about.'),
  },
  ['field'],
);

/** The envelope around `data`: `dataSchema` for 200, ErrorData otherwise. */
export function envelopeOf(dataSchema: JsonSchema, success: boolean): JsonSchema {
  return shape<Envelope<unknown>>({
    requestId: { type: 'string', format: 'uuid', description: 'Also the x-request-id response header.' },
    code: success ? { const: 0 } : int('The HTTP status.'),
    errorCode: success ? { const: 200 } : int('The HTTP status.'),
    message: success ? { const: 'success' } : str('The cause.'),
    timestamp: int('Epoch ms.'),
    data: dataSchema,
  });
}

/** The webhook request body: the task record with the event name (libs/webhooks webhookBody). */
const webhookPayload: JsonSchema = {
  ...taskRecord,
  properties: { event: enumOf(TASK_EVENTS), ...(taskRecord.properties as Record<string, JsonSchema>) },
  required: ['event', ...(taskRecord.required as string[])].sort(),
};

/** Named schemas for components.schemas. */
export const RESPONSE_SCHEMAS: Record<string, JsonSchema> = {
  ErrorData: errorData,
  WireError: wireError,
  WebSearchResult: webSearchResult,
  MapsPlaceItem: loose(mapsPlaceItem),
  MapsSearchData: mapsSearchData,
  MapsSearchResponse: mapsSearchResponse,
  PlaceRecord: loose(placeRecord),
  Money: money,
  ResultMeta: resultMeta,
  RetailRecord: loose(retailRecord),
  ScrapeResult: scrapeResult,
  ...Object.fromEntries(
    EXTRACT_TYPES.map((t) => [`ExtractResponse_${t.replace('-', '_')}`, extractResponseFor(t, EXTRACT_RECORD[t])]),
  ),
  ExtractResponse: {
    description: 'One shape per `type`: `params.type` tells which record `data` is.',
    oneOf: EXTRACT_TYPES.map((t) => ref(`ExtractResponse_${t.replace('-', '_')}`)),
  },
  TaskRecord: taskRecord,
  BatchJobOpts: batchJobOpts,
  MapsBatchJobData: mapsBatchJobData,
  SearchBatchJobData: searchBatchJobData,
  UrlJobData: urlJobData,
  MapsBatchJob: batchJob('MapsBatchJobData'),
  SearchBatchJob: batchJob('SearchBatchJobData'),
  UrlBatchJob: batchJob('UrlJobData'),
  WebhookPayload: webhookPayload,
  CrawlDocument: crawlDocument,
  CrawlStartReply: crawlStartReply,
  CrawlStatus: crawlStatus,
  MapLink: mapLink,
  MapSiteReply: mapSiteReply,
};

export { ref };
