/** Website types accepted by POST /extract and POST /extractTask/batch. */
export const EXTRACT_TYPES = ['retail', 'mp-maps', 'mp-search', 'scrape'] as const;
export type ExtractType = (typeof EXTRACT_TYPES)[number];
