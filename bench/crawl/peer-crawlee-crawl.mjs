#!/usr/bin/env node
// Peer of the crawl benchmark: Crawlee crawls site.mjs from /p/0, following same-host links, until it has handled
// `--pages` pages, at a fixed concurrency; CheerioCrawler (`--crawler cheerio`: HTTP + cheerio) or PlaywrightCrawler
// (`--crawler playwright`: the system Chromium). Keeps each page's HTML size (what a crawl with formats ["html"] keeps).
// Prints one JSON line: {"tool", crawler, pages, concurrency, seconds, pagesPerSecond, failed, htmlBytes}
import { CheerioCrawler, Configuration as CheerioConfiguration } from '@crawlee/cheerio';
import { PlaywrightCrawler, Configuration } from '@crawlee/playwright';
import { chromium } from 'playwright';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith('--') ? [...a, [v.slice(2), all[i + 1]]] : a), []),
);
const base = args.base;
const pages = Number(args.pages ?? 200);
const concurrency = Number(args.concurrency ?? 4);
const kind = args.crawler ?? 'cheerio';
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let bytes = 0;
let failed = 0;
let handled = 0;
const common = {
  minConcurrency: concurrency,
  maxConcurrency: concurrency,
  maxRequestsPerCrawl: pages,
  maxRequestRetries: 0,
  requestHandlerTimeoutSecs: 30,
  failedRequestHandler() {
    failed++;
  },
};
const crawler =
  kind === 'playwright'
    ? new PlaywrightCrawler(
        {
          ...common,
          launchContext: {
            launcher: chromium,
            launchOptions: {
              executablePath,
              headless: true,
              args: [
                '--no-sandbox',
                '--disable-gpu',
                '--disable-background-networking',
                '--disable-component-update',
                '--disable-sync',
                '--no-first-run',
                '--disable-dev-shm-usage',
              ],
            },
          },
          async requestHandler({ page, enqueueLinks }) {
            bytes += (await page.content()).length;
            handled++;
            await enqueueLinks({ strategy: 'same-hostname' });
          },
        },
        new Configuration({ persistStorage: false, purgeOnStart: true }),
      )
    : new CheerioCrawler(
        {
          ...common,
          async requestHandler({ body, enqueueLinks }) {
            bytes += body.length;
            handled++;
            await enqueueLinks({ strategy: 'same-hostname' });
          },
        },
        new CheerioConfiguration({ persistStorage: false, purgeOnStart: true }),
      );

const t0 = performance.now();
await crawler.run([`${base}/p/0`]);
const seconds = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify({
    tool: `crawlee ${kind === 'playwright' ? 'PlaywrightCrawler' : 'CheerioCrawler'}`,
    pages: handled,
    concurrency,
    seconds: +seconds.toFixed(2),
    pagesPerSecond: +(handled / seconds).toFixed(2),
    failed,
    htmlBytes: bytes,
  }),
);
