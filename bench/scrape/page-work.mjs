#!/usr/bin/env node
// The page-work pool's thread hop (ADR 0007): the same HTML digest (scan + turndown) inline and through the pool
// (one worker), for pages of growing size. Needs `npm run build` first. Prints one JSON line per size.
// Usage: node bench/scrape/page-work.mjs
import { resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (p) => pathToFileURL(resolve(root, 'dist/apps/extractor-scrape/src/content', p)).href;
const { PageWorkPool } = await import(dist('page-work.pool.js'));
const { digestPage } = await import(dist('page-digest.extractor.js'));

const page = (n) => {
  let s = '<html><head><title>t</title></head><body>';
  const block =
    '<h2>Section</h2><p>Some <a href="/x">linked</a> text with <b>bold</b> words.</p><ul><li>one</li><li>two</li></ul>';
  while (s.length < n) s += block;
  return `${s}</body></html>`;
};
const pool = new PageWorkPool({ threads: 1, budgetMs: 60_000, inlineBelowChars: 0 });
await pool.warmUp();
for (const chars of [2_000, 4_000, 8_000, 16_000, 64_000, 256_000]) {
  const task = { kind: 'html', html: page(chars), markdown: true, checkBrowser: false };
  const reps = chars < 20_000 ? 200 : 20;
  for (let i = 0; i < 5; i++) {
    await digestPage(task);
    await pool.digest(task, Date.now() + 60_000, 'bench');
  }
  let t = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) await digestPage(task);
  const inlineMs = Number(process.hrtime.bigint() - t) / 1e6 / reps;
  t = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) await pool.digest(task, Date.now() + 60_000, 'bench');
  const poolMs = Number(process.hrtime.bigint() - t) / 1e6 / reps;
  console.log(
    JSON.stringify({
      chars,
      inlineMs: +inlineMs.toFixed(2),
      poolMs: +poolMs.toFixed(2),
      hopMs: +(poolMs - inlineMs).toFixed(2),
    }),
  );
}
await pool.close();
