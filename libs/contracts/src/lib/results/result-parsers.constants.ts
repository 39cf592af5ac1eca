/** The parsers that read upstream pages into records: `meta.parser` of a result, the `parser` label of the metrics. */
export const RESULT_PARSERS = ['search', 'maps-search', 'maps-place', 'retail'] as const;
export type ResultParser = (typeof RESULT_PARSERS)[number];
