// Where the non-organic blocks of a results page live. Stable ids, data-* attributes, jsnames and roles first; a few
// long-lived class names last. Organic results, related searches and the others exclude what sits inside these.

/** Text and shopping ads (2020: #tads/#bottomads lists; 2023+: [data-text-ad] blocks). */
export const AD_REGIONS = '#tads, #tadsb, #bottomads, [data-text-ad], .commercial-unit-desktop-top, .commercial-unit-desktop-rhs, .cu-container';

/**
 * "People also ask" pairs: class kept since 2019, g-accordion-expander (2019-2020), data-q + data-lk on the pair
 * (2021+), jsname since 2023, data-initq on the block.
 */
export const PAA_REGIONS = '.related-question-pair, [data-q][data-lk], [jsname="yEVEwb"], [data-initq], g-accordion-expander';

/** The right-hand column (knowledge panel, ads). */
export const SIDE_REGIONS = '#rhs, [role="complementary"]';

/** AI overview (2024+: data-mlro / data-attnms root, #m-x-content body, data-subtree="aimc"). */
export const AI_OVERVIEW_REGIONS = '[data-mlro], [data-attnms], #m-x-content, [data-subtree="aimc"]';

/** Carousels: top stories, videos, images, "people also search for" strips. */
export const CAROUSEL_REGIONS = 'g-section-with-header, g-scrolling-carousel, [data-vid], video-voyager, #iur, [data-news-cluster-id]';

/** The local pack (map results): its entries carry data-cid. */
export const LOCAL_REGIONS = 'a[data-cid], [data-cid], .rllt__link';

/** Everything an organic result must not be inside. */
export const NON_ORGANIC_REGIONS = [AD_REGIONS, PAA_REGIONS, SIDE_REGIONS, AI_OVERVIEW_REGIONS, CAROUSEL_REGIONS, LOCAL_REGIONS].join(', ');

/** Where climbing from a result to its block stops: the results column itself. */
export const COLUMN_BOUNDARIES = '#rso, #search, #res, #center_col, #main, #rcnt, [role="main"], body, html';
