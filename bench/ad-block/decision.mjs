// Cost of blockAds' "block this request?" (ADR 0030): the engine's build once per process, and each decision.
// Usage: npm run build && node bench/ad-block/decision.mjs [--rounds 3] [--requests 20000] [--tracker-db-only]
// The engine is the default AdBlocker's (the tracker database and EasyList, BLOCK_ADS_LISTS' default); with
// --tracker-db-only, the tracker database alone (as before EasyList was loaded).
// The requests are a page's usual mix, drawn in turn: its own scripts, styles, images and XHR (first party), CDN and
// font hosts, embeds, and ad and tracker hosts of the list (a third of them). Prints one JSON line per round.
import { performance } from 'node:perf_hooks';
import { AdBlocker } from '../../dist/libs/browser-pool/src/lib/ad-blocker.service.js';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const rounds = arg('rounds', 3);
const count = arg('requests', 20_000);

const page = 'https://news.example.org/2026/11/28/harbour-bridge.html';
const mix = [
  ['https://news.example.org/assets/app.4f1c2.js', 'script'],
  ['https://news.example.org/assets/site.css', 'stylesheet'],
  ['https://news.example.org/api/comments?story=1812', 'fetch'],
  ['https://static.news.example.org/img/hero.jpg', 'image'],
  ['https://cdn.jsdelivr.net/npm/swiper@11/swiper-bundle.min.js', 'script'],
  ['https://fonts.googleapis.com/css2?family=Inter:wght@400;700', 'stylesheet'],
  ['https://www.youtube.com/embed/abc123', 'document'],
  ['https://platform.twitter.com/widgets.js', 'script'],
  ['https://www.googletagmanager.com/gtm.js?id=GTM-ABC1', 'script'],
  ['https://securepubads.g.doubleclick.net/tag/js/gpt.js', 'script'],
  ['https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js', 'script'],
  ['https://www.google-analytics.com/g/collect?v=2&tid=G-1&cid=5', 'ping'],
  ['https://c.amazon-adsystem.com/aax2/apstag.js', 'script'],
  ['https://ib.adnxs.com/ut/v3/prebid', 'xhr'],
  ['https://static.hotjar.com/c/hotjar-123.js?sv=6', 'script'],
];

const t0 = performance.now();
const cpu0 = process.cpuUsage();
const heap0 = process.memoryUsage().heapUsed;
const blocker = new AdBlocker(process.argv.includes('--tracker-db-only') ? { filterLists: [] } : {});
await blocker.ready();
const build = {
  wallMs: +(performance.now() - t0).toFixed(1),
  cpuMs: +((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000).toFixed(1),
  heapMB: +((process.memoryUsage().heapUsed - heap0) / 2 ** 20).toFixed(1),
};
const blockedOfMix = mix.filter(([url, type]) => blocker.blocks({ url, sourceUrl: page, type })).length;
console.log(JSON.stringify({ build, mix: mix.length, blockedOfMix }));

for (let r = 1; r <= rounds; r++) {
  // A query string per request, as pages make them: no two URLs alike, so nothing is answered from a cache.
  const requests = Array.from({ length: count }, (_, i) => {
    const [url, type] = mix[i % mix.length];
    return { url: `${url}${url.includes('?') ? '&' : '?'}r=${r}-${i}`, sourceUrl: page, type };
  });
  const cpu = process.cpuUsage();
  const start = performance.now();
  let blocked = 0;
  for (const req of requests) if (blocker.blocks(req)) blocked++;
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  console.log(
    JSON.stringify({
      round: r,
      requests: count,
      blocked,
      usPerDecisionWall: +((wall * 1000) / count).toFixed(2),
      usPerDecisionCpu: +((used.user + used.system) / count).toFixed(2),
    }),
  );
}
