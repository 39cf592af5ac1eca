// A Google Maps search results page as the maps web client renders it (modelled on
// ../shared/fixtures/maps/maps-cocli-2026-search-*.html): a `role="feed"` list of `role="article"` cards, each with
// the place link whose URL carries the feature id, coordinates and place id, the name, the star rating with its
// review count, category · street, a one-line description, opening status · phone, and a website button. The
// places are the ones the simulator's maps search JSON lists for the same request, so a card and the JSON agree.
// The embedded state holds the viewport only (no place arrays): a parser reads these cards. Pure: no I/O.
import { mapsSearchResponse, SIM_MAPS_MAX_RESULTS, type SimMapsSearchRequest } from './maps.page.js';

type J = null | boolean | number | string | J[];

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const arr = (v: J | undefined): J[] => (Array.isArray(v) ? v : []);
const str = (v: J | undefined): string => (typeof v === 'string' ? v : '');
const num = (v: J | undefined): number | undefined => (typeof v === 'number' ? v : undefined);

/** The place arrays (entry[14]) of a maps search JSON body. */
function placeArrays(json: string): J[][] {
  const doc = JSON.parse(json.replace(/^\)\]\}'\n/, '')) as J;
  const entries = arr(arr(arr(doc)[0])[1]);
  return entries.map((e) => arr(arr(e)[14])).filter((p) => p.length > 0);
}

function card(p: J[], hl: string): string {
  const name = str(p[11]);
  const dataId = str(p[10]);
  const placeId = str(p[78]);
  const lat = num(arr(p[9])[2]) ?? 0;
  const lng = num(arr(p[9])[3]) ?? 0;
  const rating = num(arr(p[4])[7]);
  const reviews = num(arr(p[4])[8]);
  const price = str(arr(p[4])[2]);
  const priceText = str(arr(p[4])[10]);
  const category = str(arr(p[13])[0]);
  const street = str(arr(p[2])[0]);
  const description = str(arr(arr(p[32])[1])[1]);
  const status = str(arr(arr(p[34])[4])[4]);
  const phone = str(arr(arr(p[178])[0])[0]);
  const website = str(arr(p[7])[0]);
  const q = encodeURIComponent(name).replace(/%20/g, '+');
  const href = `https://www.google.com/maps/place/${q}/data=!4m7!3m6!1s${dataId}!8m2!3d${lat}!4d${lng}!16s%2Fg%2F11sim!19s${placeId}?authuser=0&hl=${encodeURIComponent(hl)}&rclk=1`;
  const reviewsText = reviews === undefined ? '' : reviews.toLocaleString('en-US');
  const stars =
    rating === undefined
      ? ''
      : `<span class="e4rVHe fontBodyMedium"><span role="img" class="ZkP5Je" aria-label="${rating} stars ${reviewsText} Reviews"><span class="MW4etd" aria-hidden="true">${rating}</span><span class="UY7F9" aria-hidden="true">(${reviewsText})</span></span></span>`;
  const priceSpan = price
    ? `<span><span aria-hidden="true">·</span> <span role="img" aria-label="${esc(priceText)}">${esc(price)}</span></span>`
    : '';
  const [open, ...rest] = status.split(' ⋅ ');
  const statusRow = status
    ? `<div class="W4Efsd"><span><span><span style="font-weight: 400; color: rgba(25,134,57,1.00);">${esc(open)}</span><span style="font-weight: 400;">${rest.length ? ` · ${esc(rest.join(' ⋅ '))}` : ''}</span></span></span>${phone ? `<span> <span aria-hidden="true">·</span> <span class="UsdlK">${esc(phone)}</span></span>` : ''}</div>`
    : '';
  const site = website
    ? `<div class="Rwjeuc"><div class="etWJQ jym1ob kdfrQc"><a class="lcr4fd S9kvJb" data-value="Website" aria-label="Visit ${esc(name)}'s website" href="${esc(website)}"></a></div></div>`
    : '';
  return `<div><div role="article" class="Nv2PK THOPZb CpccDe " aria-label="${esc(name)}" jsaction="mouseover:pane.wfvdle7;mouseout:pane.wfvdle7"><a class="hfpxzc" aria-label="${esc(name)}" href="${esc(href)}"></a><div class="bfdHYd Ppzolf OFBs3e  "><div class="lI9IFe "><div class="y7PRA"><div class="Lui3Od T7Wufd "><div class="Z8fK3b"><div class="UaQhfb fontBodyMedium"><div class="NrDZNb"><div class="qBF1Pd fontHeadlineSmall ">${esc(name)}</div></div><div class="W4Efsd"><div class="AJB7ye">${stars}${priceSpan}</div></div><div class="W4Efsd"><div class="W4Efsd"><span><span>${esc(category)}</span></span><span> <span aria-hidden="true">·</span> <span>${esc(street)}</span></span></div>${description ? `<div class="W4Efsd"><span><span>${esc(description)}</span></span></div>` : ''}${statusRow}</div></div></div></div></div></div>${site}</div></div></div>`;
}

/** Where the next cards of a feed come from (`?start=<next>&cards=1` on the page's own URL), or '' at the end. */
function nextCardsUrl(req: SimMapsSearchRequest, pageUrl: URL | undefined, count: number): string {
  const next = req.start + count;
  if (!pageUrl || count < req.num || next >= SIM_MAPS_MAX_RESULTS) return '';
  const u = new URL(pageUrl.pathname + pageUrl.search, 'http://simulator.local');
  u.searchParams.set('start', String(next));
  u.searchParams.set('cards', '1');
  return u.pathname + u.search;
}

/** The line the feed ends with once every place is listed. */
const END_OF_LIST = `<div class="m6QErb tLjsW eKbjU "><div class="PbZDve "><p class="fontBodyMedium "><span><span class="HlvSq">You've reached the end of the list.</span></span></p></div></div>`;

/**
 * The next cards of a feed (`?start=N&cards=1`): `<div data-sim-next="…">cards</div>`. The real client fetches the
 * next places as JSON and builds the cards itself; the simulator sends them built, so the DOM is the same.
 */
export function mapsFeedCards(req: SimMapsSearchRequest, pageUrl: URL): string {
  const places = placeArrays(mapsSearchResponse(req));
  const next = nextCardsUrl(req, pageUrl, places.length);
  return `<div data-sim-next="${esc(next)}">${places.map((p) => card(p, req.hl)).join('')}${next ? '' : END_OF_LIST}</div>`;
}

/**
 * `/maps/search/<q>/@lat,lng,zoomz` as the maps web client shows it: the result feed for the request (the same places
 * as `mapsSearchResponse(req)`, `req.num` of them from `req.start`), titled `<q> - Google Maps`. With `pageUrl`, a
 * feed with more places carries `data-sim-more` (where its next cards are), which the 2026 shell's script loads when
 * the feed is scrolled to its end.
 */
export function mapsSearchHtmlPage(req: SimMapsSearchRequest, zoom = 13, pageUrl?: URL): string {
  const places = placeArrays(mapsSearchResponse(req));
  const state = JSON.stringify([[[3826.9, req.longitude, req.latitude], [0, 0, 0], [1024, 768], zoom], null, null, []]);
  const next = nextCardsUrl(req, pageUrl, places.length);
  const feed = places.length
    ? places.map((p) => card(p, req.hl)).join('') + (next ? '' : END_OF_LIST)
    : `<div class="m6QErb"><div class="Q2vNVc">Google Maps can't find ${esc(req.q)}</div></div>`;
  const more = next ? ` data-sim-more="${esc(next)}"` : '';
  return `<!DOCTYPE html><html itemscope="" itemtype="http://schema.org/Place" lang="${esc(req.hl)}"><head><meta charset="utf-8"><title>${esc(req.q)} - Google Maps</title></head><body class="LoJzbe keynav-mode-off"><div id="app-container" class="vasquette id-app-container"><div class="m6QErb WNBkOb XiKgde " role="main"><div class="m6QErb DxyBCb kA9KIf dS8AEf XiKgde ecceSd" aria-label="Results for ${esc(req.q)}" role="feed" tabindex="-1" style="overflow-y:auto;height:100vh"${more}>${feed}</div></div></div><script>window.APP_INITIALIZATION_STATE=${state};window.APP_FLAGS=[];</script></body></html>`;
}
