import { clean, isRecord, jsonAfter, textOf, tryJson, unique } from './retail-dom.util.js';
import type { RetailPage } from './retail-page.reader.js';

const ASIN_RE = /^[A-Z0-9]{10}$/;
const LANDING = ['#landingImage', '#imgBlkFront', '#ebooksImgBlkFront', '#main-image', '#imgTagWrapperId img'];

/**
 * Gallery images, full size. Layers: the image block's JSON in scripts (`'colorImages': { 'initial': [...] }`, hiRes
 * else large), then the landing image's attributes (`data-old-hires`, the largest of `data-a-dynamic-image`, `src`),
 * then the thumbnail strip (`#altImages`) with Amazon's size modifiers removed (`._AC_SR38,50_.jpg` → `.jpg`).
 */
export function extractImages(page: RetailPage): { main_image: string | null; images: string[] } {
  const { $, q } = page;
  const fromScript = colorImages(page.scripts);
  const landing = landingImage(page);
  const thumbs = q('#altImages li:not(.videoThumbnail):not(.videoBlockIngress) img, #imageBlockThumbs img')
    .toArray()
    .map((el) => $(el).attr('src') ?? '')
    .filter((src) => /\/images\/I\//.test(src))
    .map(fullSize);
  const images = unique(fromScript.length > 0 ? fromScript : [...(landing ? [landing] : []), ...thumbs]);
  return { main_image: fromScript[0] ?? landing ?? images[0] ?? null, images };
}

function colorImages(scripts: string): string[] {
  const json = jsonAfter(scripts, "'colorImages'") ?? jsonAfter(scripts, '"colorImages"');
  const data = tryJson(json);
  const initial = isRecord(data) ? data.initial : undefined;
  if (!Array.isArray(initial)) return [];
  const out: string[] = [];
  for (const img of initial) {
    if (!isRecord(img)) continue;
    const url = [img.hiRes, img.large, img.thumb].find(
      (u): u is string => typeof u === 'string' && u.startsWith('http'),
    );
    if (url) out.push(url);
  }
  return out;
}

function landingImage({ q }: RetailPage): string | undefined {
  for (const sel of LANDING) {
    const el = q(sel).first();
    if (el.length === 0) continue;
    const hires = el.attr('data-old-hires');
    if (hires?.startsWith('http')) return hires;
    const dynamic = tryJson(el.attr('data-a-dynamic-image'));
    if (isRecord(dynamic)) {
      const largest = Object.entries(dynamic)
        .map(([url, dims]) => ({ url, area: Array.isArray(dims) ? Number(dims[0]) * Number(dims[1]) : 0 }))
        .sort((a, b) => b.area - a.area)[0];
      if (largest?.url.startsWith('http')) return largest.url;
    }
    const src = el.attr('src');
    if (src?.startsWith('http')) return src;
  }
  return undefined;
}

/** `…/I/41D3A8I6NeL._SX38_SY50_CR,0,0,38,50_.jpg` → `…/I/41D3A8I6NeL.jpg` */
export function fullSize(url: string): string {
  return url.replace(/\._[^/]*_\.(jpe?g|png|gif|webp)$/i, '.$1');
}

/**
 * The product's variations (size, colour, …) with their ASINs. Layers: the twister's JSON in scripts
 * (`"dimensionValuesDisplayData" : { "<ASIN>": ["16 Pro Max", "Privacy"] }`), then the swatches in the DOM
 * (`li[data-asin]` / `li[data-defaultasin]` / `data-dp-url` under the twister), then the size drop-down.
 */
export function extractVariants({ $, q, scripts }: RetailPage): { asin: string; label: string }[] {
  const data = tryJson(jsonAfter(scripts, '"dimensionValuesDisplayData"'));
  if (isRecord(data)) {
    const fromScript = Object.entries(data)
      .filter(([asin, values]) => ASIN_RE.test(asin) && Array.isArray(values))
      .map(([asin, values]) => ({ asin, label: (values as unknown[]).map((v) => clean(String(v))).join(' / ') }));
    if (fromScript.length > 0) return fromScript;
  }
  const swatches = q(
    ['#twister_feature_div', '#twister', '#twisterContainer', '[id^="inline-twister-row-"]', '[id^="variation_"]']
      .map((c) => `${c} li`)
      .join(', '),
  ).toArray();
  const fromDom = swatches.map((el) => {
    const li = $(el);
    const asin =
      li.attr('data-asin') ||
      li.attr('data-defaultasin') ||
      /\/dp\/([A-Z0-9]{10})/.exec(li.attr('data-dp-url') ?? '')?.[1] ||
      '';
    const label =
      clean(li.find('img').first().attr('alt')) ||
      textOf(li.find('.swatch-title-text-display, .swatch-title-text, .twister-plus-swatch-text').first()) ||
      clean(li.attr('title')).replace(/^click to select\s*/i, '') ||
      textOf(li.find('.a-button-text').first());
    return { asin, label };
  });
  const options = q('select[name^="dropdown_selected_"] option, select#native_dropdown_selected_size_name option')
    .toArray()
    .map((el) => ({ asin: /([A-Z0-9]{10})$/.exec($(el).attr('value') ?? '')?.[1] ?? '', label: textOf($(el)) }));
  return unique(
    [...fromDom, ...options].filter((v) => ASIN_RE.test(v.asin) && v.label),
    (v) => v.asin,
  );
}
