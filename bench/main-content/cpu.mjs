#!/usr/bin/env node
// CPU of the main-content digest (parse, clean, choose, prune, markdown: what the page-work pool runs for a scrape
// with onlyMainContent), against the whole-page markdown of the same pages, in process, one thread. Pages: the bench
// site's ~40 KB article page (shared/bench/site.mjs, /p/7) and the 61 pages of shared/fixtures/main-content.
// Prints one JSON line per page set: median CPU ms a page, and median CPU ms per 40 KB (each page's CPU scaled by
// 40 KB / its size).
// With --block-ads, each set is also measured with blockAds' element hiding (the default AdBlocker's engine, EasyList
// beside the tracker database; ADR 0030), in the same run: rows `blockAds: false` and `blockAds: true`.
// Usage: node bench/main-content/cpu.mjs [--rounds 20] [--block-ads]
import { spawn } from 'node:child_process';
import { register } from 'node:module';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
register(join(root, 'apps/extractor-scrape/src/content/ts-source-hooks.mjs'), import.meta.url);
const { digestPage } = await import(join(root, 'apps/extractor-scrape/src/content/page-digest.extractor.ts'));
const shared = process.env.TRAWL_SHARED_DIR ?? join(root, '..', 'shared');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 20);
const tools = {};
if (process.argv.includes('--block-ads')) {
  const { AdBlocker } = await import(join(root, 'libs/browser-pool/src/lib/ad-blocker.service.ts'));
  const { AdHider } = await import(join(root, 'apps/extractor-scrape/src/content/ad-hider.extractor.ts'));
  const blocker = new AdBlocker();
  await blocker.ready();
  tools.adHider = new AdHider(blocker.serialize());
}

const sets = {};
const sitePath = join(shared, 'bench', 'site.mjs');
if (existsSync(sitePath)) {
  const site = spawn(process.execPath, [sitePath, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { port } = await new Promise((ok) => site.stdout.once('data', (d) => ok(JSON.parse(String(d).split('\n')[0]))));
  sets['bench site /p/0-/p/9'] = [];
  for (let i = 0; i < 10; i++)
    sets['bench site /p/0-/p/9'].push(await (await fetch(`http://127.0.0.1:${port}/p/${i}`)).text());
  site.kill();
}
const dir = join(shared, 'fixtures/main-content/html');
if (existsSync(dir))
  sets['main-content fixtures (61)'] = readdirSync(dir)
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'));

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name, pages] of Object.entries(sets)) {
  for (const hideAds of tools.adHider ? [false, true] : [false]) {
    const row = { pages: name, medianKb: +median(pages.map((p) => p.length / 1024)).toFixed(1) };
    if (tools.adHider) row.blockAds = hideAds;
    for (const onlyMainContent of [true, false]) {
      const ms = [];
      const per40 = [];
      for (const html of pages) {
        const task = {
          kind: 'html',
          html,
          markdown: true,
          checkBrowser: false,
          onlyMainContent,
          metadata: true,
          url: 'https://example.com/',
          hideAds,
        };
        for (let i = 0; i < 3; i++) await digestPage(task, tools);
        const t0 = process.cpuUsage();
        for (let i = 0; i < rounds; i++) await digestPage(task, tools);
        const d = process.cpuUsage(t0);
        const m = (d.user + d.system) / 1000 / rounds;
        ms.push(m);
        per40.push((m * 40 * 1024) / html.length);
      }
      row[onlyMainContent ? 'mainContent' : 'wholePage'] = {
        medianMs: +median(ms).toFixed(2),
        medianMsPer40Kb: +median(per40).toFixed(2),
      };
    }
    console.log(JSON.stringify(row));
  }
}
