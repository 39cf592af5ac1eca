import robotsParserModule from 'robots-parser';

type RobotsParse = typeof robotsParserModule.default;
/** robots-parser is CommonJS (`module.exports = function`): its default import is that function at run time. */
const robotsParser: RobotsParse =
  (robotsParserModule as unknown as { default?: RobotsParse }).default ??
  (robotsParserModule as unknown as RobotsParse);

/** robots.txt of a host as fetched: its text (2xx), none (4xx: everything allowed), or unreachable (5xx, network:
 * nothing allowed, RFC 9309 §2.3.1.4). */
export type RobotsRecord = { status: 'ok'; text: string } | { status: 'none' } | { status: 'unreachable' };

/** What robots.txt says to one user agent. */
export interface RobotsRules {
  allowed(url: string): boolean;
  /** `Crawl-delay`, ms (bounded by the caller). */
  crawlDelayMs?: number;
  /** `Sitemap:` lines. */
  sitemaps: string[];
}

/** Reads robots.txt (a maintained parser: robots-parser) for `agent`, the crawl's product token. */
export function robotsRules(robotsUrl: string, record: RobotsRecord, agent: string): RobotsRules {
  if (record.status === 'none') return { allowed: () => true, sitemaps: [] };
  if (record.status === 'unreachable') return { allowed: () => false, sitemaps: [] };
  const robots = robotsParser(robotsUrl, record.text);
  const delay = robots.getCrawlDelay(agent);
  return {
    // A URL robots-parser cannot place (another host) is not its to refuse.
    allowed: (url) => robots.isAllowed(url, agent) !== false,
    ...(delay !== undefined && Number.isFinite(delay) && delay > 0 ? { crawlDelayMs: Math.round(delay * 1000) } : {}),
    sitemaps: robots.getSitemaps(),
  };
}

/** The robots.txt URL of a page's origin. */
export function robotsUrlOf(url: string): string {
  return new URL('/robots.txt', url).href;
}
