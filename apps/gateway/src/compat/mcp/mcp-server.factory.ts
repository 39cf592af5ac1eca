import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { MapsPlaceItem } from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { toErrorEnvelope } from '../../envelope/error-envelope.mapper.js';
import type { FirecrawlBatchService } from '../firecrawl/firecrawl-batch.service.js';
import type { FirecrawlService } from '../firecrawl/firecrawl.service.js';
import type { FirecrawlDocument } from '../firecrawl/firecrawl-scrape.mapper.js';
import type { FirecrawlCrawlService } from '../firecrawl/firecrawl-crawl.service.js';
import type { NativeOperations } from '../native-operations.service.js';
import {
  BATCH_SCRAPE_INPUT,
  BATCH_SCRAPE_OUTPUT,
  BATCH_STATUS_INPUT,
  BATCH_STATUS_OUTPUT,
  CRAWL_CANCEL_INPUT,
  CRAWL_CANCEL_OUTPUT,
  CRAWL_INPUT,
  CRAWL_OUTPUT,
  CRAWL_STATUS_INPUT,
  CRAWL_STATUS_OUTPUT,
  EXTRACT_INPUT,
  EXTRACT_OUTPUT,
  MAPS_SEARCH_INPUT,
  MAPS_SEARCH_OUTPUT,
  MAP_INPUT,
  MAP_OUTPUT,
  SCRAPE_INPUT,
  SCRAPE_OUTPUT,
  SEARCH_INPUT,
  SEARCH_OUTPUT,
} from './mcp-tools.schema.js';

/** The server's name and version as MCP's initialize answers them. */
export const MCP_SERVER_INFO = { name: 'trawl', version: '1.0.0' } as const;

/** How often batch_scrape looks at its batch while it waits. */
const BATCH_POLL_MS = 1000;
/** How often crawl looks at its crawl while it waits. */
const CRAWL_POLL_MS = 1000;

/** What the tools run on: the peers' translations and the native operations, as the calling key. */
export interface McpToolContext {
  native: NativeOperations;
  firecrawl: FirecrawlService;
  batches: FirecrawlBatchService;
  crawls: FirecrawlCrawlService;
  req: AuthenticatedRequest;
  res: FastifyReply;
}

/** A tool's result: text for the model (markdown or JSON) and the same data as `structuredContent`. */
function result(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** A failure as a tool result the model reads (`isError`), with Trawl's code: never a protocol error. */
function failure(e: unknown): CallToolResult {
  const { body } = toErrorEnvelope(e, '');
  return { isError: true, content: [{ type: 'text', text: `${body.data.error}: ${body.message}` }] };
}

async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (e) {
    return failure(e);
  }
}

/** A `data:` URL's image as MCP's image content (base64 and its type), or undefined when it is not one. */
function imageOf(dataUrl: unknown): { type: 'image'; data: string; mimeType: string } | undefined {
  if (typeof dataUrl !== 'string') return undefined;
  const m = /^data:(image\/[a-z+.-]+);base64,(.*)$/s.exec(dataUrl);
  return m ? { type: 'image', data: m[2] ?? '', mimeType: m[1] ?? 'image/png' } : undefined;
}

/**
 * What the model reads of a scraped document, one content item per format asked for: the page's text (markdown,
 * else html or the raw html), the summary, the json object, the links as a list, and the screenshot (and each
 * screenshot action's) as an image; a document with none of them reads as an empty text.
 */
export function scrapeContent(document: FirecrawlDocument): Pick<CallToolResult, 'content'> {
  const content: CallToolResult['content'] = [];
  const page = document.markdown ?? document.html ?? document.rawHtml;
  if (page !== undefined) content.push({ type: 'text', text: page });
  if (document.summary !== undefined) content.push({ type: 'text', text: `Summary:\n${document.summary}` });
  if (document.json !== undefined)
    content.push({ type: 'text', text: `\`\`\`json\n${JSON.stringify(document.json, null, 2)}\n\`\`\`` });
  if (Array.isArray(document.links))
    content.push({ type: 'text', text: `Links:\n${document.links.map((l) => `- ${String(l)}`).join('\n')}` });
  const actions = (document as { actions?: { screenshots?: unknown[] } }).actions;
  for (const shot of [document.screenshot, ...(actions?.screenshots ?? [])]) {
    const image = imageOf(shot);
    if (image) content.push(image);
  }
  return { content: content.length > 0 ? content : [{ type: 'text', text: '' }] };
}

function placeOf(p: MapsPlaceItem) {
  return {
    title: p.name,
    placeId: p.place_id,
    address: p.address,
    rating: p.rating,
    reviews: p.number_of_reviews,
    category: p.mp_category[0] ?? '',
    phone: p.mp_phone,
    website: p.website,
    latitude: p.latitude,
    longitude: p.longitude,
    mapsUrl: p.mp_maps_url,
  };
}

/**
 * One MCP server for one HTTP request (the transport is stateless): the tools scrape, search, maps_search, extract,
 * batch_scrape and batch_status, each a call of a native operation (or of Firecrawl's translation of one) as the
 * request's key, with its limits and tenancy; crawl, crawl_status, crawl_cancel and map on the native crawl (through
 * Firecrawl's translation of it, ADR 0028).
 */
export function createMcpServer(ctx: McpToolContext): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: {} } });
  const { native, firecrawl, batches, crawls, req, res } = ctx;

  server.registerTool(
    'scrape',
    {
      title: 'Scrape a page',
      description:
        'Reads one web page and returns its main content as markdown (or the whole page, html, its links, a ' +
        'screenshot, a summary or a JSON object read out of it), with its metadata; browser actions can run first.',
      inputSchema: SCRAPE_INPUT,
      outputSchema: SCRAPE_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args) =>
      guarded(async () => {
        const { document, warning } = await firecrawl.scrape(args, req, res);
        return { ...scrapeContent(document), structuredContent: { document, ...(warning ? { warning } : {}) } };
      }),
  );

  server.registerTool(
    'search',
    {
      title: 'Search the web',
      description: 'Searches the web; each result has url, title, description and position. scrapeResults reads them.',
      inputSchema: SEARCH_INPUT,
      outputSchema: SEARCH_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ scrapeResults, ...args }) =>
      guarded(async () => {
        const body = { ...args, ...(scrapeResults ? { scrapeOptions: { formats: ['markdown'] } } : {}) };
        const { web, warning } = await firecrawl.search(body, req, res);
        const text = web
          .map(
            (w) =>
              `${w.position}. [${w.title}](${w.url})\n${w.description}${typeof w.markdown === 'string' ? `\n\n${w.markdown}` : ''}`,
          )
          .join('\n\n');
        return result(text, { web, ...(warning ? { warning } : {}) });
      }),
  );

  server.registerTool(
    'maps_search',
    {
      title: 'Search places on the map',
      description: 'Searches a map for places: name, address, rating, reviews, category, phone, website, position.',
      inputSchema: MAPS_SEARCH_INPUT,
      outputSchema: MAPS_SEARCH_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args) =>
      guarded(async () => {
        const found = await native.maps(args, req, res);
        const places = found.data.organicResults.map(placeOf);
        const text = places
          .map(
            (p, i) => `${i + 1}. ${p.title} (${p.category}), ${p.address}; rating ${p.rating} (${p.reviews} reviews)`,
          )
          .join('\n');
        return result(text, { places });
      }),
  );

  server.registerTool(
    'extract',
    {
      title: 'Extract a record',
      description: 'Extracts a structured record from a product page (retail) or a maps place page (place).',
      inputSchema: EXTRACT_INPUT,
      outputSchema: EXTRACT_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ type, url }) =>
      guarded(async () => {
        const record = (await native.extract(
          { type: type === 'place' ? 'mp-maps' : 'retail', url },
          req,
          res,
        )) as unknown as Record<string, unknown>;
        return result(JSON.stringify(record, null, 2), { type, record });
      }),
  );

  const statusResult = (id: string, status: Awaited<ReturnType<FirecrawlBatchService['status']>>) => {
    const { nextSkip: _next, creditsUsed: _credits, ...rest } = status;
    void _next;
    void _credits;
    const text =
      `Batch ${id}: ${status.status}, ${status.completed}/${status.total} pages.` +
      status.data.map((d) => `\n\n## ${d.metadata.sourceURL}\n\n${d.markdown ?? d.html ?? ''}`).join('');
    return result(text, { id, ...rest });
  };

  server.registerTool(
    'batch_scrape',
    {
      title: 'Scrape many pages',
      description:
        'Starts reading many pages at once. With waitSeconds it waits for them (progress notifications as pages ' +
        'finish); otherwise it answers the batch id at once: read it with batch_status.',
      inputSchema: BATCH_SCRAPE_INPUT,
      outputSchema: BATCH_SCRAPE_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ urls, formats, waitSeconds }, extra) =>
      guarded(async () => {
        const { id } = await batches.start({ urls, ...(formats ? { formats } : {}) }, req, 'v2');
        const until = Date.now() + (waitSeconds ?? 0) * 1000;
        const progressToken = extra._meta?.progressToken;
        let status = await batches.status(id, req);
        while (status.status === 'scraping' && Date.now() < until && !extra.signal.aborted) {
          if (progressToken !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: {
                progressToken,
                progress: status.completed,
                total: status.total,
                message: `${status.completed} of ${status.total} pages`,
              },
            });
          }
          await new Promise((r) => setTimeout(r, BATCH_POLL_MS));
          status = await batches.status(id, req);
        }
        if (progressToken !== undefined && status.status !== 'scraping') {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: status.total, total: status.total, message: status.status },
          });
        }
        return statusResult(id, status);
      }),
  );

  server.registerTool(
    'batch_status',
    {
      title: 'Read a batch',
      description: 'The state of a batch_scrape and the pages read so far (only the key that started it finds it).',
      inputSchema: BATCH_STATUS_INPUT,
      outputSchema: BATCH_STATUS_OUTPUT,
      annotations: { readOnlyHint: true },
    },
    ({ id }) => guarded(async () => statusResult(id, await batches.status(id, req))),
  );

  const crawlResult = (id: string, status: Awaited<ReturnType<FirecrawlCrawlService['status']>>) => {
    const { creditsUsed: _credits, ...rest } = status;
    void _credits;
    const more = status.next
      ? `\n\nMore documents: crawl_status with cursor ${status.next.cursor}, skip ${status.next.skip}.`
      : '';
    const text =
      `Crawl ${id}: ${status.status}, ${status.completed}/${status.total} pages, ${status.data.length} documents here.` +
      status.data.map((d) => `\n\n## ${d.metadata.sourceURL}\n\n${d.markdown ?? d.html ?? ''}`).join('') +
      more;
    return result(text, { id, ...rest });
  };

  server.registerTool(
    'crawl',
    {
      title: 'Crawl a site',
      description:
        'Crawls a site from a URL (robots.txt obeyed, each page once) and reads its pages as markdown. With ' +
        'waitSeconds it waits for the crawl (progress notifications as pages finish); otherwise it answers the ' +
        'crawl id at once: read it with crawl_status.',
      inputSchema: CRAWL_INPUT,
      outputSchema: CRAWL_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ formats, waitSeconds, ...options }, extra) =>
      guarded(async () => {
        const started = await crawls.start({ ...options, ...(formats ? { scrapeOptions: { formats } } : {}) }, req);
        const until = Date.now() + (waitSeconds ?? 0) * 1000;
        const progressToken = extra._meta?.progressToken;
        let status = await crawls.status(started.id, req, { skip: 0 });
        while (status.status === 'scraping' && Date.now() < until && !extra.signal.aborted) {
          if (progressToken !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: {
                progressToken,
                progress: status.completed,
                total: status.total,
                message: `${status.completed} of ${status.total} pages`,
              },
            });
          }
          await new Promise((r) => setTimeout(r, CRAWL_POLL_MS));
          status = await crawls.status(started.id, req, { skip: 0 });
        }
        if (progressToken !== undefined && status.status !== 'scraping') {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: status.total, total: status.total, message: status.status },
          });
        }
        return crawlResult(started.id, status);
      }),
  );

  server.registerTool(
    'crawl_status',
    {
      title: 'Read a crawl',
      description:
        'The state of a crawl and a page of its documents; `next` says where the next page starts (only the key ' +
        'that started it finds it).',
      inputSchema: CRAWL_STATUS_INPUT,
      outputSchema: CRAWL_STATUS_OUTPUT,
      annotations: { readOnlyHint: true },
    },
    ({ id, cursor, skip }) =>
      guarded(async () =>
        crawlResult(id, await crawls.status(id, req, cursor !== undefined ? { cursor, skip: skip ?? 0 } : { skip: 0 })),
      ),
  );

  server.registerTool(
    'crawl_cancel',
    {
      title: 'Cancel a crawl',
      description: 'Stops a crawl: no new page starts; the documents stored so far stay readable.',
      inputSchema: CRAWL_CANCEL_INPUT,
      outputSchema: CRAWL_CANCEL_OUTPUT,
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    ({ id }) =>
      guarded(async () => {
        await crawls.cancel(id, req);
        return result(`Crawl ${id} cancelled.`, { id, status: 'cancelled' });
      }),
  );

  server.registerTool(
    'map',
    {
      title: 'Map a site',
      description:
        "Lists a site's URLs (titles where known) from its sitemaps and its pages' links, without reading every page.",
      inputSchema: MAP_INPUT,
      outputSchema: MAP_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args) =>
      guarded(async () => {
        const { links, warning } = await crawls.map(args, req, 'v2');
        const objects = links as { url: string; title?: string }[];
        const text = objects.map((l) => `- ${l.title ? `[${l.title}](${l.url})` : l.url}`).join('\n');
        return result(text, { links: objects, ...(warning ? { warning } : {}) });
      }),
  );

  return server;
}
