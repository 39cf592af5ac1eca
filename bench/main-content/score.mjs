#!/usr/bin/env node
// Main-content candidates side by side, in process (no gateway): each candidate turns a page of
// shared/fixtures/main-content into markdown or text, and the benchmark's own measure (the code of
// shared/bench/main-content.mjs: 4-token shingles, per-page normalised TP/FP/FN, F1 of the mean precision and recall)
// scores it against the ground truth. The published outputs (Readability.js, trafilatura, ...) are scored beside.
// The 61 pages are split by position in sorted order: even positions are the tuning half, odd the held-out half.
// A further set of pages laid out as Mozilla Readability's test pages (<dir>/<name>/source.html, the page, and
// <dir>/<name>/expected.html, Readability's own output, whose text is the ground truth) is scored beside with
// `--fresh <dir>`: a set kept outside the repository (not ours to copy), skipped with a message where absent. Its
// ground truth is Readability's output, so it leans toward Readability.
// Usage: node bench/main-content/score.mjs [--split tuning|held-out|all] [--only trawl] [--pages] [--cpu]
//        [--fresh <dir>] [--digits 3]
import { register } from 'node:module';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
register(join(root, 'apps/extractor-scrape/src/content/ts-source-hooks.mjs'), import.meta.url);
const { digestPage } = await import(join(root, 'apps/extractor-scrape/src/content/page-digest.extractor.ts'));
const { HtmlToMarkdown } = await import(join(root, 'apps/extractor-scrape/src/markdown/html-to-markdown.renderer.ts'));
const { Readability } = await import('@mozilla/readability');
const { parseHTML } = await import('linkedom');

const argv = process.argv.slice(2);
const arg = (k, d) => (argv.includes(`--${k}`) ? argv[argv.indexOf(`--${k}`) + 1] : d);
const dir = arg('dir', join(process.env.TRAWL_SHARED_DIR ?? join(root, '..', 'shared'), 'fixtures/main-content'));
const split = arg('split', 'all');
const only = arg('only', '');
// With --block-ads, `trawl, blockAds` is scored beside `trawl`: the same digest with blockAds' element hiding (the
// default AdBlocker's engine, EasyList beside the tracker database; ADR 0030), on each page's own URL.
const adHider = argv.includes('--block-ads') ? await loadAdHider() : undefined;
async function loadAdHider() {
  const { AdBlocker } = await import(join(root, 'libs/browser-pool/src/lib/ad-blocker.service.ts'));
  const { AdHider } = await import(join(root, 'apps/extractor-scrape/src/content/ad-hider.extractor.ts'));
  const blocker = new AdBlocker();
  await blocker.ready();
  return new AdHider(blocker.serialize());
}
const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8'));
const all = Object.keys(truth).sort();
const halves = { tuning: all.filter((_, k) => k % 2 === 0), 'held-out': all.filter((_, k) => k % 2 === 1), all };

// --- the fresh set (Readability's test pages' layout), when asked for and present ---
const freshDir = arg('fresh', '');
const fresh = { ids: [], pages: {}, truth: {} };
if (freshDir && !existsSync(freshDir)) {
  console.error(`fresh set: ${freshDir} is absent, skipped (it is kept outside the repository)`);
} else if (freshDir) {
  for (const name of readdirSync(freshDir).sort()) {
    const source = join(freshDir, name, 'source.html');
    const expected = join(freshDir, name, 'expected.html');
    if (!existsSync(source) || !existsSync(expected)) continue;
    fresh.ids.push(name);
    fresh.pages[name] = readFileSync(source, 'utf8');
    fresh.truth[name] = htmlText(readFileSync(expected, 'utf8'));
  }
  if (fresh.ids.length === 0) console.error(`fresh set: no <name>/source.html + expected.html in ${freshDir}, skipped`);
}
/** The text of an HTML fragment: block ends as spaces, so that words of two paragraphs are not run together. */
function htmlText(html) {
  const spaced = html.replace(
    /<\/?(?:p|div|h[1-6]|li|ul|ol|br|tr|td|th|table|blockquote|pre|figure|figcaption|section|article|header|footer|dd|dt|dl|hr|img)\b[^>]*>/gi,
    ' $& ',
  );
  const { document } = parseHTML(`<!doctype html><html><body>${spaced}</body></html>`);
  return document.body.textContent ?? '';
}
/** The URL a fresh page is scored under (Readability's tests use this one). */
const FRESH_URL = 'http://fakehost/test/page.html';

// --- the measure (as shared/bench/main-content.mjs) ---
const tokens = (s) => (s ?? '').match(/[\p{L}\p{N}_]+/gu) ?? [];
function shingles(s, n = 4) {
  const t = tokens(s);
  const m = new Map();
  for (let i = 0; i < Math.max(1, t.length - n + 1); i++) {
    const k = t.slice(i, i + n).join('\u0001');
    if (k) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}
function tpFpFn(want, got) {
  const a = shingles(want),
    b = shingles(got);
  let tp = 0,
    fp = 0,
    fn = 0;
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k) ?? 0,
      y = b.get(k) ?? 0;
    tp += Math.min(x, y);
    fp += Math.max(0, y - x);
    fn += Math.max(0, x - y);
  }
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [0, 0, 0];
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
function score(ids, pred, want = (id) => truth[id].articleBody ?? '') {
  const rows = ids.map((id) => tpFpFn(want(id), pred[id] ?? ''));
  const p = mean(
    rows.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => (fp === 0 && fn === 0 ? 1 : tp / (tp + fp))),
  );
  const r = mean(
    rows.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => (fp === 0 && fn === 0 ? 1 : tp / (tp + fn))),
  );
  return { f1: (2 * p * r) / (p + r), precision: p, recall: r };
}
const plain = (md) =>
  (md ?? '')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
    .replace(/^\s*\[[^\]]+\]:\s*\S+.*$/gm, ' ')
    .replace(/<https?:[^>]+>/g, ' ')
    .replace(/<[^>]+>/g, ' ');

// --- the candidates ---
const turndown = new HtmlToMarkdown();
const candidates = {
  'whole page (turndown)': (html) => plain(turndown.convert(html)),
  'Readability 0.6 (linkedom)': (html, url) => {
    const { document } = parseHTML(html);
    const article = new Readability(document, { keepClasses: false }).parse();
    return article ? plain(turndown.convert(article.content ?? '')) : '';
  },
  trawl: async (html, url) => {
    const o = await digestPage({ kind: 'html', html, markdown: true, checkBrowser: false, onlyMainContent: true, url });
    if (!o.ok) throw new Error(o.error.message);
    return plain(o.digest.markdown);
  },
  // The same answer without its headline (ADR 0023 keeps it on top; the measures count it as not the body).
  'trawl, headline left out': async (html, url) => {
    const o = await digestPage({ kind: 'html', html, markdown: true, checkBrowser: false, onlyMainContent: true, url });
    if (!o.ok) throw new Error(o.error.message);
    return plain(o.digest.markdown.replace(/^# [^\n]*\n+/, ''));
  },
};

const pages = Object.fromEntries(all.map((id) => [id, readFileSync(join(dir, 'html', `${id}.html`), 'utf8')]));
if (adHider) {
  candidates['trawl, blockAds'] = async (html, url) => {
    const task = { kind: 'html', html, markdown: true, checkBrowser: false, onlyMainContent: true, url };
    const o = await digestPage({ ...task, hideAds: true }, { adHider });
    if (!o.ok) throw new Error(o.error.message);
    return plain(o.digest.markdown);
  };
}
const results = {};
const freshResults = {};
for (const [name, fn] of Object.entries(candidates)) {
  if (only && !name.startsWith(only)) continue;
  const pred = {};
  for (const id of all) pred[id] = await fn(pages[id], truth[id].url);
  results[name] = pred;
  if (fresh.ids.length === 0) continue;
  const freshPred = {};
  for (const id of fresh.ids) freshPred[id] = await fn(fresh.pages[id], FRESH_URL);
  freshResults[name] = freshPred;
}
for (const f of existsSync(join(dir, 'output')) ? readdirSync(join(dir, 'output')) : []) {
  let o = JSON.parse(readFileSync(join(dir, 'output', f), 'utf8'));
  if (o.output) o = o.output;
  results[`published: ${f.replace(/\.json$/, '')}`] = Object.fromEntries(
    all.map((id) => [id, o[id]?.articleBody ?? '']),
  );
}
const digits = Number(arg('digits', '3'));
const fmt = (s) => `${s.f1.toFixed(digits)} (P ${s.precision.toFixed(digits)} R ${s.recall.toFixed(digits)})`;
const shown = split === 'all' ? ['tuning', 'held-out', 'all'] : [split];
const freshColumn = fresh.ids.length > 0 ? [`fresh (${fresh.ids.length} pages) F1`] : [];
console.log(
  `| candidate | ${[...shown.map((h) => `${h} (${halves[h].length} pages) F1`), ...freshColumn].join(' | ')} |`,
);
console.log(`| --- | ${[...shown, ...freshColumn].map(() => '---').join(' | ')} |`);
for (const [name, pred] of Object.entries(results)) {
  const freshCell =
    freshColumn.length === 0
      ? []
      : [freshResults[name] ? fmt(score(fresh.ids, freshResults[name], (id) => fresh.truth[id])) : '—'];
  console.log(`| ${name} | ${[...shown.map((h) => fmt(score(halves[h], pred))), ...freshCell].join(' | ')} |`);
}
if (argv.includes('--pages')) {
  const ids = halves[split === 'all' ? 'tuning' : split];
  for (const id of ids) {
    const [tp, fp, fn] = tpFpFn(truth[id].articleBody, results.trawl?.[id] ?? '');
    const p = tp / (tp + fp || 1),
      r = tp / (tp + fn || 1);
    console.log(`${id.slice(0, 8)} P ${p.toFixed(3)} R ${r.toFixed(3)} ${truth[id].url.slice(0, 80)}`);
  }
}
if (argv.includes('--cpu')) {
  // CPU per page of the whole main-content digest (parse, clean, choose, prune, markdown), median over the pages.
  const times = [];
  for (const id of all) {
    const html = pages[id];
    const task = { kind: 'html', html, markdown: true, checkBrowser: false, onlyMainContent: true, url: truth[id].url };
    for (let i = 0; i < 3; i++) await digestPage(task);
    const n = 10;
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await digestPage(task);
    const d = process.cpuUsage(t0);
    times.push({ kb: html.length / 1024, ms: (d.user + d.system) / 1000 / n });
  }
  times.sort((a, b) => a.ms - b.ms);
  const perKb = times.map((t) => t.ms / t.kb).sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      pages: times.length,
      medianMs: +times[times.length >> 1].ms.toFixed(2),
      medianKb: +times
        .map((t) => t.kb)
        .sort((a, b) => a - b)
        [times.length >> 1].toFixed(1),
      medianMsPer40Kb: +(perKb[perKb.length >> 1] * 40).toFixed(2),
    }),
  );
}
