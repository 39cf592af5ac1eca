import type { TrawlValues } from './trawl-values.reader.js';

/**
 * The extractors' parse metrics the alerts read (emitted by libs/parsers through the extractors; names agreed with
 * the locale work): pages parsed per parser, pages in which a field was filled, pages no parser recognised.
 */
export const PARSE_METRICS = {
  pages: 'trawl_parse_pages_total',
  fieldPresent: 'trawl_parse_field_present_total',
  unrecognised: 'trawl_parse_unrecognised_total',
} as const;

/** prometheus-operator's PrometheusRule (monitoring.coreos.com/v1), the part we render. */
export interface IPrometheusRule {
  apiVersion: 'monitoring.coreos.com/v1';
  kind: 'PrometheusRule';
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: {
    groups: {
      name: string;
      rules: {
        alert: string;
        expr: string;
        for?: string;
        labels?: Record<string, string>;
        annotations?: Record<string, string>;
      }[];
    }[];
  };
}

/**
 * Alerts on parser drift, which shows before users complain: a field whose presence rate over the last hour fell
 * below `fieldPresenceDropRatio` of its 7-day rate (with traffic, and for fields that are usually there), and an
 * upstream whose unrecognised pages per second over 30 minutes rose past `unrecognisedRiseFactor` times its 7-day
 * rate (and above a small floor, so one odd page does not page anyone).
 */
export function alertRules(v: TrawlValues, metadata: IPrometheusRule['metadata']): IPrometheusRule | undefined {
  if (!v.alerts.enabled) return undefined;
  const drop = v.alerts.fieldPresenceDropRatio ?? 0.5;
  const rise = v.alerts.unrecognisedRiseFactor ?? 3;
  const hold = v.alerts.for ?? '15m';
  const { pages, fieldPresent, unrecognised } = PARSE_METRICS;
  const presence = (window: string) =>
    `(sum by (parser, field) (rate(${fieldPresent}[${window}])) / on (parser) group_left sum by (parser) (rate(${pages}[${window}])))`;
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata,
    spec: {
      groups: [
        {
          name: 'trawl-parser-drift',
          rules: [
            {
              alert: 'TrawlFieldPresenceDropped',
              expr:
                `${presence('1h')} < ${drop} * ${presence('7d')}` +
                ` and ${presence('7d')} > 0.2` +
                ` and on (parser) sum by (parser) (increase(${pages}[1h])) > 20`,
              for: hold,
              labels: { severity: 'warning' },
              annotations: {
                summary: 'Parser {{ $labels.parser }} fills {{ $labels.field }} far less often than last week',
                description:
                  'The share of pages in which {{ $labels.parser }} filled {{ $labels.field }} over the last hour is under ' +
                  `${drop} of its 7-day share: the upstream's markup probably changed. Check the parser against a fresh page.`,
              },
            },
            {
              alert: 'TrawlUnrecognisedPagesRising',
              expr:
                `sum by (upstream) (rate(${unrecognised}[30m])) > ${rise} * sum by (upstream) (rate(${unrecognised}[7d]))` +
                ` and sum by (upstream) (increase(${unrecognised}[30m])) > 10`,
              for: hold,
              labels: { severity: 'warning' },
              annotations: {
                summary: 'More pages from {{ $labels.upstream }} are not recognised than usual',
                description: `Unrecognised pages from {{ $labels.upstream }} over 30 minutes are above ${rise}x their 7-day rate: a new page variant, a block page or a layout change.`,
              },
            },
          ],
        },
      ],
    },
  };
}
