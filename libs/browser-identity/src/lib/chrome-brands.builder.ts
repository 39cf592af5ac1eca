/** One entry of `navigator.userAgentData.brands` / `fullVersionList` (and of the `Sec-CH-UA` headers). */
export interface BrandVersion {
  brand: string;
  version: string;
}

const GREASY_CHARS = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
const GREASED_VERSIONS = ['8', '99', '24'];
const ORDERS = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
] as const;

/**
 * The brand list Chrome reports for a version, as Chromium builds it (`GenerateBrandVersionList` in
 * components/embedder_support/user_agent_utils.cc, the UA-CH "GREASE" algorithm): a made-up brand whose punctuation,
 * version and position are seeded by the major version, then "Chromium" and the browser's own brand in an order
 * seeded the same way. So it follows the real version instead of a brand string frozen at one release. Checked
 * against every Chrome from 110 in header-generator's dataset (chrome-brands.builder.spec.ts) and the real Chromium's own list.
 *
 * `brand` undefined gives Chromium's own two-entry list; `full` gives `fullVersionList` (full versions, the made-up
 * brand as `N.0.0.0`).
 */
export function chromeBrands(version: string, options: { brand?: string; full?: boolean } = {}): BrandVersion[] {
  const seed = majorOf(version);
  const shown = options.full ? version : String(seed);
  const greaseVersion = GREASED_VERSIONS[seed % GREASED_VERSIONS.length];
  const grease: BrandVersion = {
    brand: `Not${GREASY_CHARS[seed % GREASY_CHARS.length]}A${GREASY_CHARS[(seed + 1) % GREASY_CHARS.length]}Brand`,
    version: options.full ? `${greaseVersion}.0.0.0` : greaseVersion,
  };
  const chromium: BrandVersion = { brand: 'Chromium', version: shown };
  if (options.brand === undefined) {
    const list: BrandVersion[] = [];
    list[seed % 2] = grease;
    list[(seed + 1) % 2] = chromium;
    return list;
  }
  const order = ORDERS[seed % ORDERS.length];
  const list: BrandVersion[] = [];
  list[order[0]] = grease;
  list[order[1]] = chromium;
  list[order[2]] = { brand: options.brand, version: shown };
  return list;
}

/** A brand list as the `Sec-CH-UA` / `Sec-CH-UA-Full-Version-List` headers write it: `"A";v="1", "B";v="2"`. */
export function brandHeader(brands: readonly BrandVersion[]): string {
  return brands.map((b) => `"${b.brand}";v="${b.version}"`).join(', ');
}

/** The major version of `156.0.8078.79` (156); throws on anything that is not a Chrome version. */
export function majorOf(version: string): number {
  const m = /^(\d+)(\.\d+){0,3}$/.exec(version.trim());
  if (!m) throw new Error(`not a Chrome version: ${version}`);
  return Number(m[1]);
}
