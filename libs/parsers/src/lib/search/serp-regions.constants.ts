// Where the non-organic blocks of a results page live. Stable ids, data-* attributes, jsnames and roles first; a few
// long-lived class names last. Organic results, related searches and the others exclude what sits inside these.

/** Text and shopping ads (2020: #tads/#bottomads lists; 2023+: [data-text-ad] blocks). */
export const AD_REGIONS =
  '#tads, #tadsb, #bottomads, [data-text-ad], .commercial-unit-desktop-top, .commercial-unit-desktop-rhs, .cu-container';

/**
 * "People also ask" pairs: class kept since 2019, g-accordion-expander (2019-2020), data-q + data-lk on the pair
 * (2021+), jsname since 2023, data-initq on the block.
 */
export const PAA_REGIONS =
  '.related-question-pair, [data-q][data-lk], [jsname="yEVEwb"], [data-initq], g-accordion-expander';

/** The right-hand column (knowledge panel, ads). */
export const SIDE_REGIONS = '#rhs, [role="complementary"]';

/** AI overview (2024+: data-mlro / data-attnms root, #m-x-content body, data-subtree="aimc"). */
export const AI_OVERVIEW_REGIONS = '[data-mlro], [data-attnms], #m-x-content, [data-subtree="aimc"]';

/** Carousels: top stories, videos, images, "people also search for" strips. */
export const CAROUSEL_REGIONS =
  'g-section-with-header, g-scrolling-carousel, [data-vid], video-voyager, #iur, [data-news-cluster-id]';

/**
 * Carousels without the video markers: a video result standing alone in the results column carries data-vid /
 * video-voyager too (2023-2026) and is an organic result when its title is an <h3>; the cards of a video carousel
 * sit inside g-scrolling-carousel / a role="list" and use role="heading" titles.
 */
export const STRIP_REGIONS =
  'g-section-with-header, g-scrolling-carousel, #iur, [data-news-cluster-id], g-inner-card, [role="list"]';

/** The local pack (map results): its entries carry data-cid. */
export const LOCAL_REGIONS = 'a[data-cid], [data-cid], .rllt__link';

/** Everything an organic result must not be inside. */
export const NON_ORGANIC_REGIONS = [
  AD_REGIONS,
  PAA_REGIONS,
  SIDE_REGIONS,
  AI_OVERVIEW_REGIONS,
  CAROUSEL_REGIONS,
  LOCAL_REGIONS,
].join(', ');

/** A video player block's data-cid is a short hex id, not a place's: it is not a local-pack entry. */
const LOCAL_NOT_VIDEO = 'a[data-cid], [data-cid]:not([data-vid]):not([data-curl]):not([data-surl]), .rllt__link';

/** What an <h3>-titled result must not be inside: as above, but a lone video block in the column is a result. */
export const NON_ORGANIC_FOR_H3 = [
  AD_REGIONS,
  PAA_REGIONS,
  SIDE_REGIONS,
  AI_OVERVIEW_REGIONS,
  STRIP_REGIONS,
  LOCAL_NOT_VIDEO,
].join(', ');

/** Where climbing from a result to its block stops: the results column itself. */
export const COLUMN_BOUNDARIES = '#rso, #search, #res, #center_col, #main, #rcnt, [role="main"], body, html';
