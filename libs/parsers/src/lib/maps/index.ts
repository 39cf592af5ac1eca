export { parseMapsSearch, type MapsSearchContext } from './maps-search.parser.js';
export { parsePlacePage, type PlacePageContext } from './place-page.parser.js';
export {
  buildMapsSearchUrl,
  parseLl,
  DEFAULT_MAPS_PAGE_SIZE,
  type MapsSearchUrlRequest,
  type MapsViewport,
} from './maps-url.builder.js';
export { classifyMapsWall } from './maps-page.guard.js';
