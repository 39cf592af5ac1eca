import { mapsFeedCards, mapsSearchHtmlPage } from './pages/maps-search-html.page.js';
import {
  mapsPlacePage,
  mapsSearchRequestFromUrl,
  mapsSearchResponse,
  type SimMapsSearchRequest,
} from './pages/maps.page.js';
import { asinOfProductPath, retailProductPage } from './pages/retail.page.js';
import { renderSearchPage, searchParamsFromUrl } from './pages/search.page.js';
import type { SimulatorRoute } from './simulator.server.js';
import type { SimulatorMode } from './simulator.options.js';

const MAPS_SEARCH_PATH = /^\/maps\/search\/([^/]+)\/?(?:@(-?[\d.]+),(-?[\d.]+),([\d.]+)z)?/;

/** The search a `/maps/search/<q>/@lat,lng,zoomz` URL asks for (20 places from the first, as the web client lists). */
function mapsSearchOfPath(url: URL): (SimMapsSearchRequest & { zoom: number }) | undefined {
  const m = MAPS_SEARCH_PATH.exec(url.pathname);
  if (!m) return undefined;
  return {
    q: decodeURIComponent(m[1].replace(/\+/g, ' ')),
    hl: url.searchParams.get('hl') ?? 'en',
    gl: url.searchParams.get('gl') ?? 'us',
    latitude: m[2] ? Number(m[2]) : 40.7128,
    longitude: m[3] ? Number(m[3]) : -74.006,
    zoom: m[4] ? Number(m[4]) : 13,
    num: 20,
    start: 0,
  };
}

/**
 * What the simulator serves, by URL (the shapes the extractors build, and the real sites' page URLs):
 *
 * | URL | page |
 * |---|---|
 * | `/search?tbm=map&q=…&pb=…` | maps search JSON (the maps client's endpoint; `pb` carries viewport, num, start) |
 * | `/maps/search/<q>/@lat,lng,zoomz` | the same JSON for a maps search URL (type `mp-search`) |
 * | `/maps/place/?q=place_id:<id>`, `/maps/place/<name>/…`, `/maps/search/?api=1&query_place_id=<id>` | a place page |
 */
export const MAPS_ROUTES: SimulatorRoute[] = [
  {
    name: 'maps-search',
    site: 'google',
    contentType: 'application/json; charset=utf-8',
    render: (url) =>
      url.pathname === '/search' && url.searchParams.get('tbm') === 'map'
        ? mapsSearchResponse(mapsSearchRequestFromUrl(url))
        : undefined,
  },
  {
    name: 'maps-place',
    site: 'google',
    render: (url) => {
      const id = placeIdOf(url);
      return id === undefined ? undefined : mapsPlacePage(id, url.searchParams.get('hl') ?? 'en');
    },
  },
  {
    name: 'maps-search-url',
    site: 'google',
    contentType: 'application/json; charset=utf-8',
    render: (url) => {
      const req = mapsSearchOfPath(url);
      return req && mapsSearchResponse(req);
    },
  },
];

/** The place id a place URL names: `q=place_id:<id>`, `query_place_id=<id>`, else the `/maps/place/<…>` segment. */
function placeIdOf(url: URL): string | undefined {
  const q = url.searchParams.get('q') ?? '';
  if (q.startsWith('place_id:')) return q.slice('place_id:'.length);
  const queryPlaceId = url.searchParams.get('query_place_id');
  if (url.pathname.startsWith('/maps/search') && queryPlaceId) return queryPlaceId;
  const m = /^\/maps\/place\/([^/]+)/.exec(url.pathname);
  return m ? decodeURIComponent(m[1]) : undefined;
}

/** `/search?q=…&hl=&gl=&start=&num=`: a Google-like results page. */
export const SEARCH_ROUTE: SimulatorRoute = {
  name: 'search',
  site: 'google',
  render: (url) => (url.pathname === '/search' ? renderSearchPage(searchParamsFromUrl(url)) : undefined),
};

/** `/dp/<ASIN>`, `/<slug>/dp/<ASIN>`, `/gp/product/<ASIN>`: an Amazon-like product page. */
export const RETAIL_ROUTE: SimulatorRoute = {
  name: 'retail',
  site: 'amazon',
  render: (url) => {
    const asin = asinOfProductPath(url.pathname);
    return asin === undefined ? undefined : retailProductPage(asin);
  },
};

/** Every generated page, most specific first (`/search?tbm=map` before the web search's `/search`). */
export const SIMULATOR_ROUTES: SimulatorRoute[] = [...MAPS_ROUTES, SEARCH_ROUTE, RETAIL_ROUTE];

/**
 * The 2026 pages: as SIMULATOR_ROUTES, except that a maps search URL (`/maps/search/<q>/@lat,lng,zoomz`) is the web
 * client's HTML results page (a feed of place cards, as the 2026 captures show it), not JSON.
 */
export const SIMULATOR_ROUTES_2026: SimulatorRoute[] = SIMULATOR_ROUTES.map((route) =>
  route.name === 'maps-search-url'
    ? {
        name: 'maps-search-url',
        site: 'google',
        render: (url: URL) => {
          const req = mapsSearchOfPath(url);
          if (!req) return undefined;
          // The web client lists 20 places and loads the next ones as the feed is scrolled (see the README).
          const start = Number(url.searchParams.get('start') ?? '0');
          const paged = { ...req, start: Number.isInteger(start) && start > 0 ? start : 0 };
          return url.searchParams.get('cards') === '1'
            ? mapsFeedCards(paged, url)
            : mapsSearchHtmlPage(paged, req.zoom, url);
        },
      }
    : route,
);

/** The routes a mode serves. */
export function routesFor(mode: SimulatorMode = 'classic'): SimulatorRoute[] {
  return mode === '2026' ? SIMULATOR_ROUTES_2026 : SIMULATOR_ROUTES;
}
