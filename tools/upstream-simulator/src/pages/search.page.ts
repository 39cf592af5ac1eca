// Simulated Google web search upstream: for any query a results page shaped like the real desktop markup of
// 2023-2025 (#search/#rso blocks with data-hveid, title links wrapping an <h3>, <cite>, data-sncf snippet and
// sitelink rows, "people also ask" pairs with data-q, related searches in #botstuff, a data-attrid knowledge panel
// in #rhs). Everything is derived from the request by hashing, so the same request always gets the same page.
// Pure: no I/O, no clock, nothing imported from the parsers (this is the upstream, not us).
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { type SimLocale, simLocaleFor } from './sim-locales.constants.js';

export interface SimSearchParams {
  q: string;
  hl?: string;
  gl?: string;
  start?: number;
  num?: number;
}

/** How many results a query has in all: a page starting past it is a "did not match any documents" page. */
export const SIM_SEARCH_MAX_RESULTS = 300;
/** Google's own cap on results per page. */
export const SIM_SEARCH_MAX_NUM = 100;

const SITES: [name: string, host: string, section: string][] = [
  ['Wikipedia', 'en.wikipedia.org', 'wiki'],
  ['Reddit', 'www.reddit.com', 'r'],
  ['The Guardian', 'www.theguardian.com', 'world'],
  ['Medium', 'medium.com', 'topic'],
  ['YouTube', 'www.youtube.com', 'watch'],
  ['Stack Overflow', 'stackoverflow.com', 'questions'],
  ['BBC', 'www.bbc.co.uk', 'news'],
  ['Forbes', 'www.forbes.com', 'advisor'],
  ['Britannica', 'www.britannica.com', 'topic'],
  ['GitHub', 'github.com', 'topics'],
  ['Healthline', 'www.healthline.com', 'health'],
  ['The Verge', 'www.theverge.com', 'tech'],
  ['Quora', 'www.quora.com', 'What-is'],
  ['Investopedia', 'www.investopedia.com', 'terms'],
  ['National Geographic', 'www.nationalgeographic.com', 'science'],
  ['Mozilla', 'developer.mozilla.org', 'docs'],
];

const TITLE_PATTERNS = [
  (q: string) => `${q} - Everything You Need to Know`,
  (q: string) => `What is ${q}? A Complete Guide`,
  (q: string) => `${q}: History, Facts and Examples`,
  (q: string) => `10 Things About ${q} Nobody Tells You`,
  (q: string) => `${q} Explained in Plain English`,
  (q: string) => `The Best ${q} Resources in One Place`,
  (q: string) => `How ${q} Works`,
  (q: string) => `${q} | Latest News and Analysis`,
];

const SNIPPET_PATTERNS = [
  (em: string) =>
    `Learn what ${em} is, how it works and why it matters. Our guide covers the basics, common questions and expert tips.`,
  (em: string) =>
    `A practical introduction to ${em}, with examples, comparisons and a short history of how it came to be.`,
  (em: string) =>
    `Everything about ${em} in one place: definitions, pros and cons, and answers from people who use it every day.`,
  (em: string) =>
    `Discover the latest on ${em}. Read reviews, see what experts recommend and find out what to look for.`,
];

const QUESTION_PATTERNS = [
  (q: string) => `What is ${q} used for?`,
  (q: string) => `Is ${q} worth it?`,
  (q: string) => `How does ${q} work?`,
  (q: string) => `What are the disadvantages of ${q}?`,
  (q: string) => `Who invented ${q}?`,
  (q: string) => `How much does ${q} cost?`,
];

const RELATED_SUFFIXES = [
  'meaning',
  'examples',
  'near me',
  'price',
  'vs alternatives',
  'history',
  'benefits',
  'for beginners',
  'reviews',
  'definition',
];
const SITELINK_NAMES = ['Overview', 'Pricing', 'Guides', 'About us', 'Contact', 'Blog', 'Help center', 'Careers'];
const ENTITY_TYPES = ['Topic', 'Concept', 'Product', 'Organization', 'Technology', 'Activity'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A deterministic stream of numbers from the seed text. */
function rng(seed: string): (n: number) => number {
  let counter = 0;
  let pool: Buffer = Buffer.alloc(0);
  let at = 0;
  return (n: number) => {
    if (at + 4 > pool.length) {
      pool = createHash('sha256').update(`${seed}#${counter++}`).digest();
      at = 0;
    }
    const v = pool.readUInt32BE(at);
    at += 4;
    return n > 0 ? v % n : 0;
  };
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const slug = (s: string): string =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .slice(0, 60) || 'page';

const titleCase = (s: string): string =>
  s.replace(/(^|\s)(\p{L})/gu, (_, sp: string, c: string) => sp + c.toUpperCase());

// ---- a real (tiny) PNG favicon per site: a 16x16 square in the site's colour with a diagonal shade ------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

function faviconDataUri(host: string): string {
  const [r, g, b] = createHash('md5').update(host).digest();
  const size = 16;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const rows = Array.from({ length: size }, (_, y) => {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const shade = ((x + y) * 7) & 0xff;
      row.set([r ^ shade, g, b ^ (255 - shade)], 1 + x * 3);
    }
    return row;
  });
  const raw = Buffer.concat(rows);
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

// ---- the page ---------------------------------------------------------------------------------------------------

interface SimResult {
  title: string;
  link: string;
  host: string;
  site: string;
  path: string[];
  date: string;
  snippetHtml: string;
  inline: { title: string; link: string }[];
  table: { title: string; link: string; snippet: string }[];
}

/** A result's date as the locale writes it ("Nov 25, 2021" in en-US, "25.11.2021" in de-DE, "2021/11/25" in ja-JP). */
function resultDate(locale: SimLocale, y: number, m: number, d: number): string {
  if (locale.tag === 'en-US') return `${MONTHS[m]} ${d}, ${y}`;
  return new Intl.DateTimeFormat(locale.tag, { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(Date.UTC(y, m, d)),
  );
}

function makeResult(q: string, position: number, locale: SimLocale): SimResult {
  const r = rng(`${q.toLowerCase()}|result|${position}`);
  const [site, host, section] = SITES[r(SITES.length)];
  const title = TITLE_PATTERNS[r(TITLE_PATTERNS.length)](titleCase(q));
  const page = `${slug(q)}-${position}`;
  const link = `https://${host}/${section}/${page}`;
  const date =
    r(3) === 0 ? ((m: number, d: number, y: number) => resultDate(locale, y, m, d))(r(12), 1 + r(28), 2019 + r(6)) : '';
  const snippetHtml = esc(SNIPPET_PATTERNS[r(SNIPPET_PATTERNS.length)]('\u0000')).replace(
    '\u0000',
    `<em>${esc(q)}</em>`,
  );
  const inline: SimResult['inline'] = [];
  const table: SimResult['table'] = [];
  if (position === 1 || r(5) === 0) {
    const start = r(SITELINK_NAMES.length);
    for (let i = 0; i < 4; i++) {
      const name = SITELINK_NAMES[(start + i) % SITELINK_NAMES.length];
      inline.push({ title: name, link: `https://${host}/${slug(name)}` });
    }
  } else if (position === 2) {
    for (let i = 0; i < 2; i++) {
      const name = SITELINK_NAMES[(r(SITELINK_NAMES.length) + i) % SITELINK_NAMES.length];
      table.push({
        title: name,
        link: `https://${host}/${section}/${slug(name)}`,
        snippet: `${name} for ${q} on ${site}.`,
      });
    }
  }
  return { title, link, host, site, path: [section, page], date, snippetHtml, inline, table };
}

function resultHtml(res: SimResult, hveid: string): string {
  const cite = `https://${res.host}<span role="text"> › ${res.path.map(esc).join(' › ')}</span>`;
  const date = res.date ? `<span class="LEwnzc"><span>${esc(res.date)}</span> — </span>` : '';
  const inline = res.inline.length
    ? `<div class="Z26q7c UK95Uc" data-sncf="2" data-snf="gdePb"><div class="HiHjCd">${res.inline
        .map((s) => `&lrm;<a href="${esc(s.link)}">${esc(s.title)}</a>`)
        .join(' · ')}</div></div>`
    : '';
  const table = res.table.length
    ? `<div class="Z26q7c UK95Uc" data-sncf="3"><table class="jmjoTe"><tbody><tr>${res.table
        .map(
          (s) =>
            `<td><div class="usJj9c"><h3><a href="${esc(s.link)}">${esc(s.title)}</a></h3><div>${esc(s.snippet)}</div></div></td>`,
        )
        .join('')}</tr></tbody></table></div>`
    : '';
  return `<div class="MjjYud"><div jscontroller="SC7lYd" class="g Ww4FFb vt6azd tF2Cxc asEBEc" lang="en" data-hveid="${hveid}">
<div class="kvH3mc BToiNc" data-snc="${hveid}"><div class="Z26q7c UK95Uc jGGQ5e" data-snf="x5WNvb" data-snhf="0"><div class="yuRUbf"><div><span jscontroller="msmzHf"><a jsname="UWckNb" href="${esc(res.link)}"><br><h3 class="LC20lb MBeuO DKV0Md">${esc(res.title)}</h3><div class="notranslate HGLrXd NJjxre ojE3Fb"><div class="q0vns"><span class="H9lube"><div class="eqA2re NjwKYd Vwoesf" aria-hidden="true"><img class="XNo5Ab" src="${faviconDataUri(res.host)}" style="height:18px;width:18px" alt=""></div></span><div class="CA5RN"><div><span class="VuuXrf">${esc(res.site)}</span></div><div class="byrV5b"><cite class="qLRx3b tjvcx GvPZzd cHaqb" role="text">${cite}</cite></div></div></div></div></a></span></div></div></div>
<div class="Z26q7c UK95Uc" data-sncf="1" data-snf="nke7rc"><div class="VwiC3b yXK7lf" style="-webkit-line-clamp:2">${date}<span>${res.snippetHtml}</span></div></div>${inline}${table}
</div></div></div>`;
}

function peopleAlsoAskHtml(q: string, ui: SimLocale['search']): string {
  const r = rng(`${q.toLowerCase()}|paa`);
  const start = r(QUESTION_PATTERNS.length);
  const pairs = Array.from({ length: 4 }, (_, i) => {
    const question = QUESTION_PATTERNS[(start + i) % QUESTION_PATTERNS.length](q);
    const [site, host, section] = SITES[r(SITES.length)];
    // Google pre-renders the first answer; the others load when opened.
    const answer =
      i === 0
        ? `<div jsname="NRdf4c" class="bCOlv"><div data-attrid="wa:/description"><span lang="en"><span class="hgKElc">${esc(q)} is best understood by what it does: it solves a common problem in a simple way.</span></span></div><div data-hveid="PAA${i}"><div class="tF2Cxc"><div class="yuRUbf"><a href="https://${host}/${section}/${slug(question)}"><h3 class="LC20lb">${esc(question)} - ${esc(site)}</h3><cite>https://${host}</cite></a></div></div></div></div>`
        : `<div jsname="NRdf4c" class="bCOlv"></div>`;
    return `<div jsname="yEVEwb"><div class="wQiwMc related-question-pair" data-q="${esc(question)}" data-lk="${createHash('md5').update(question).digest('hex').slice(0, 12)}"><div jsname="YrZdPb"><div><div role="button" tabindex="0" jsname="tJHJj" aria-expanded="false"><div jsname="lN6iy"><span><span class="CSkcDe">${esc(question)}</span></span></div></div></div>${answer}</div></div></div>`;
  });
  return `<div class="MjjYud"><div class="cUnQKe" data-initq="${esc(q)}"><div role="heading" aria-level="2"><span>${esc(ui.paa)}</span></div>${pairs.join('')}</div></div>`;
}

function relatedHtml(q: string, ui: SimLocale['search']): string {
  const r = rng(`${q.toLowerCase()}|related`);
  const start = r(RELATED_SUFFIXES.length);
  const links = Array.from({ length: 8 }, (_, i) => {
    const query = `${q} ${RELATED_SUFFIXES[(start + i) % RELATED_SUFFIXES.length]}`;
    return `<div class="s75CSd"><a class="k8XOCe" href="/search?q=${encodeURIComponent(query).replace(/%20/g, '+')}&amp;sa=X&amp;ved=sim${i}"><div class="aXBZVd"></div><div class="s75CSd"><span>${esc(q.toLowerCase())} <b>${esc(RELATED_SUFFIXES[(start + i) % RELATED_SUFFIXES.length])}</b></span></div></a></div>`;
  });
  return `<div id="botstuff"><div data-hveid="REL"><div class="oIk2Cb"><div role="heading" aria-level="2"><span>${esc(ui.related)}</span></div><div class="y6Uyqe">${links.join('')}</div></div></div>
<div role="navigation"><table class="AaVjTc"><tbody><tr><td><a aria-label="Page 2" href="/search?q=${encodeURIComponent(q)}&amp;start=10">2</a></td></tr></tbody></table></div></div>`;
}

function knowledgePanelHtml(q: string): string {
  const r = rng(`${q.toLowerCase()}|kp`);
  const name = titleCase(q);
  const type = ENTITY_TYPES[r(ENTITY_TYPES.length)];
  const year = 1900 + r(120);
  return `<div id="rhs"><div class="kp-wholepage"><div data-attrid="title" class="PZPZlf"><span role="heading" aria-level="2">${esc(name)}</span></div>
<div data-attrid="subtitle"><span>${esc(type)}</span></div>
<g-img data-attrid="image"><img id="kp_img" src="${faviconDataUri(`kp:${q}`)}" alt=""></g-img>
<div data-attrid="description"><div class="kno-rdesc"><h3>Description</h3><span>${esc(name)} is a ${esc(type.toLowerCase())} known around the world since ${year}.</span><span> <a href="https://en.wikipedia.org/wiki/${encodeURIComponent(name.replace(/ /g, '_'))}">Wikipedia</a></span></div></div>
<div data-attrid="kc:/common:founded"><div class="rVusze"><span class="w8qArf">First mentioned<span>:</span> </span><span class="LrzXr">${year}</span></div></div>
<div data-attrid="ss:/webfacts:origin"><div class="rVusze"><span class="w8qArf">Origin<span>:</span> </span><span class="LrzXr">${esc(SITES[r(SITES.length)][0])} archives</span></div></div>
</div></div>`;
}

/** The request a results-page URL carries (q, hl, gl, start, num), as the route hands it to renderSearchPage. */
export function searchParamsFromUrl(url: URL): SimSearchParams {
  const int = (v: string | null): number | undefined => (v && /^\d+$/.test(v) ? Number(v) : undefined);
  return {
    q: url.searchParams.get('q') ?? '',
    hl: url.searchParams.get('hl') ?? undefined,
    gl: url.searchParams.get('gl') ?? undefined,
    start: int(url.searchParams.get('start')),
    num: int(url.searchParams.get('num')),
  };
}

/**
 * A Google-like results page for any query: `num` organic results (default 10, at most 100) numbered from
 * `start`, the first with sitelinks, four "people also ask" questions, eight related searches, and for about a
 * third of queries a knowledge panel. Past SIM_SEARCH_MAX_RESULTS, or for an empty query, a no-results page.
 */
export function renderSearchPage(params: SimSearchParams): string {
  const q = params.q.trim().replace(/\s+/g, ' ');
  const hl = (params.hl ?? 'en').trim() || 'en';
  const locale = simLocaleFor(hl, params.gl);
  const ui = locale.search;
  const start = Math.max(0, Math.trunc(params.start ?? 0));
  const num = Math.min(SIM_SEARCH_MAX_NUM, Math.max(1, Math.trunc(params.num ?? 10)));
  const count = q ? Math.max(0, Math.min(num, SIM_SEARCH_MAX_RESULTS - start)) : 0;

  const head = `<!doctype html><html lang="${esc(hl)}" dir="${locale.dir}" itemscope itemtype="http://schema.org/SearchResultsPage"><head><meta charset="UTF-8"><title>${esc(q)} - ${esc(ui.search)}</title></head><body jsmodel="hspDDf">
<div class="sfbg"><form action="/search" autocomplete="off" method="GET" role="search"><textarea class="gLFyf" name="q" maxlength="2048" aria-label="${esc(ui.search)}">${esc(q)}</textarea><input type="hidden" name="hl" value="${esc(hl)}">${params.gl ? `<input type="hidden" name="gl" value="${esc(params.gl)}">` : ''}</form></div>`;

  if (count === 0) {
    return `${head}<div id="rcnt"><div id="center_col"><div class="eqAnXb" id="res" role="main"><div id="topstuff"><div class="mnr-c"><div class="card-section"><p role="heading" aria-level="3">${esc(ui.noMatch(q))}</p></div></div></div><div id="search"></div></div></div></div></body></html>`;
  }

  const results = Array.from({ length: count }, (_, i) => makeResult(q, start + i + 1, locale));
  const blocks = results.map((res, i) => resultHtml(res, `sim${start + i + 1}`));
  // "People also ask" sits after the second result on the first page, as on real pages.
  if (start === 0) blocks.splice(Math.min(2, blocks.length), 0, peopleAlsoAskHtml(q, ui));
  const withPanel = start === 0 && rng(`${q.toLowerCase()}|has-kp`)(3) === 0;

  return `${head}
<div id="rcnt" class="GyAeWb"><div id="center_col" class="s6JM6d"><div class="eqAnXb" id="res" role="main"><div id="search"><div data-hveid="CAEQAA"><h1 class="Uo8X3b">${esc(ui.results)}</h1><div id="rso" class="v7W49e" data-async-context="query:${esc(encodeURIComponent(q))}">
${blocks.join('\n')}
</div></div></div></div>
${relatedHtml(q, ui)}
</div>${withPanel ? knowledgePanelHtml(q) : ''}</div>
</body></html>`;
}
