#!/usr/bin/env node
// Markdown converter comparison (docs/decisions/0003-markdown-converter.md): turndown vs node-html-markdown on the
// bench site's page and on real fixture pages (read from ../shared, never copied). Prints one JSON line per input.
// Usage: node bench/scrape/markdown.mjs [--rounds 200]
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import TurndownService from 'turndown';
import { NodeHtmlMarkdown } from 'node-html-markdown';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const shared = process.env.TRAWL_SHARED_DIR ?? join(root, '..', 'shared');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 200);

const inputs = [];
const sitePath = join(shared, 'bench', 'site.mjs');
if (existsSync(sitePath)) {
  const site = spawn(process.execPath, [sitePath, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { port } = await new Promise((ok) => site.stdout.once('data', (d) => ok(JSON.parse(String(d).split('\n')[0]))));
  inputs.push(['bench site /p/7', await (await fetch(`http://127.0.0.1:${port}/p/7`)).text()]);
  site.kill();
}
for (const f of [
  'retail/retail-metascraper-2019-amazon-com-B07G2L3JMM-wall-sconce.html',
  'serp/serp-zlurad-2023-google-nojs.html',
]) {
  const p = join(shared, 'fixtures', f);
  if (existsSync(p)) inputs.push([`fixture ${f}`, readFileSync(p, 'utf8')]);
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
turndown.remove(['script', 'style', 'noscript']);
const nhm = new NodeHtmlMarkdown({ ignore: ['script', 'style', 'noscript'] });
const converters = { turndown: (h) => turndown.turndown(h), 'node-html-markdown': (h) => nhm.translate(h) };

for (const [name, html] of inputs) {
  const row = { input: name, htmlBytes: html.length };
  for (const [cname, fn] of Object.entries(converters)) {
    const n = html.length > 200_000 ? Math.max(10, rounds / 10) : rounds;
    for (let i = 0; i < 5; i++) fn(html); // warm-up
    const t0 = performance.now();
    let out = '';
    for (let i = 0; i < n; i++) out = fn(html);
    const ms = (performance.now() - t0) / n;
    row[cname] = { msPerPage: +ms.toFixed(2), markdownBytes: out.length };
  }
  console.log(JSON.stringify(row));
}
