import { HeaderGenerator } from 'header-generator';
import { brandHeader, chromeBrands, majorOf, type BrandVersion } from './chrome-brands.builder.js';
import { newestRecordedChrome, resolveChromeVersion, type ChromeVersionSource } from './chrome-version.resolver.js';
import { COUNTRY_POSITIONS } from './country-position.constants.js';
import { acceptLanguageOf, localeIdentity, type LocaleIdentity } from './locale-identity.factory.js';

/** CDP `Emulation.UserAgentMetadata`: what `navigator.userAgentData` and the `Sec-CH-UA-*` headers report. */
export interface UserAgentMetadata {
  brands: BrandVersion[];
  fullVersionList: BrandVersion[];
  fullVersion: string;
  platform: string;
  platformVersion: string;
  architecture: string;
  model: string;
  mobile: boolean;
  bitness: string;
  wow64: boolean;
  formFactors: string[];
}

/**
 * One ordinary desktop Chrome: the real Chromium's version, Google Chrome's brands for it, the OS the browser
 * really runs on (Linux: fonts, WebGL and `navigator.platform` agree), and the language settings and clock of
 * `hl`/`gl`. The browser pool applies it to a context; the HTTP engines send its `navigationHeaders`.
 */
export interface BrowserIdentity extends LocaleIdentity {
  /** Full Chrome version claimed (`156.0.8078.79`). */
  browserVersion: string;
  /** `navigator.userAgent` and the `User-Agent` header (reduced form: `Chrome/156.0.0.0`). */
  userAgent: string;
  /** `navigator.platform`. */
  platform: string;
  userAgentMetadata: UserAgentMetadata;
  /** The low-entropy client hints every request carries: `sec-ch-ua`, `sec-ch-ua-mobile`, `sec-ch-ua-platform`. */
  clientHints: Record<string, string>;
  /**
   * The headers of a top-level navigation typed into the address bar, in Chrome's order (header-generator's
   * recording, with this identity's user agent, client hints and Accept-Language).
   */
  navigation: Record<string, string>;
  /** A phone's screen (a `mobile` identity only): what the browser context emulates. */
  device?: { viewport: { width: number; height: number }; deviceScaleFactor: number; isMobile: true; hasTouch: true };
  /** Where the browser says it is (an identity made for a `location` with a listed country only). */
  geolocation?: { latitude: number; longitude: number };
}

/** What an identity is made for. */
export interface IdentityOptions {
  hl?: string;
  gl?: string;
  /**
   * The languages the browser prefers, most preferred first (a scrape's `location.languages`): `navigator.languages`
   * and Accept-Language say these instead of what hl/gl make; the locale is the first.
   */
  languages?: string[];
  /** A phone: Chrome on Android (user agent, client hints and navigation headers that agree) and its screen. */
  mobile?: boolean;
  /** Give the identity the position of its country (`gl`), when COUNTRY_POSITIONS lists it. */
  geolocate?: boolean;
}

/** The brand Chrome adds to Chromium's. */
const BRAND = 'Google Chrome';
/** The OS the pool's Chromium runs on (Debian in the image): claiming another would contradict fonts and WebGL. */
const OS = { ua: 'X11; Linux x86_64', platform: 'Linux x86_64', hint: 'Linux', generator: 'linux' } as const;
/**
 * The phone a `mobile` identity is: Chrome on Android, as a Pixel 8 reports it (reduced user agent `Android 10; K`,
 * as Chrome sends since its user-agent reduction; the model and version only in the high-entropy hints).
 */
const PHONE = {
  ua: 'Linux; Android 10; K',
  platform: 'Linux armv81',
  hint: 'Android',
  platformVersion: '14.0.0',
  model: 'Pixel 8',
  generator: 'android',
  viewport: { width: 412, height: 915 },
  deviceScaleFactor: 2.625,
} as const;
/** Content codings the HTTP engines decode (`zstd` needs Node 22.15+). */
const DECODED_CODINGS = ['gzip', 'deflate', 'br'];

export interface BrowserIdentitiesOptions {
  /** The real Chrome version (a launched browser's `browser.version()`); else resolved once (resolveChromeVersion). */
  version?: string;
  /** Chromium binary to ask for its version when `version` is not given. */
  executablePath?: string;
}

/**
 * Makes identities for one Chrome version. `create` draws a new one (header details vary as header-generator
 * samples them); `forLocale` keeps one per hl/gl for the process (what a caller without sessions uses).
 */
export class BrowserIdentities {
  readonly version: string;
  readonly source: ChromeVersionSource | 'given';
  private readonly generator = new HeaderGenerator();
  private readonly recordedMajor: number;
  private readonly kept = new Map<string, BrowserIdentity>();

  constructor(options: BrowserIdentitiesOptions = {}) {
    if (options.version) {
      majorOf(options.version);
      this.version = options.version.trim();
      this.source = 'given';
    } else {
      const resolved = resolveChromeVersion(options.executablePath);
      this.version = resolved.version;
      this.source = resolved.source;
    }
    this.recordedMajor = Math.min(majorOf(this.version), majorOf(newestRecordedChrome()));
  }

  /** A new identity for a host language and country. */
  create(options: IdentityOptions = {}): BrowserIdentity {
    const locale = localeIdentity(options.languages?.[0] ?? options.hl, options.gl);
    if (options.languages && options.languages.length > 0) {
      locale.languages = options.languages.map((l) => l.replace('_', '-'));
      locale.locale = locale.languages[0];
      locale.acceptLanguage = acceptLanguageOf(locale.languages);
    }
    const mobile = options.mobile === true;
    const major = majorOf(this.version);
    const reduced = `${major}.0.0.0`;
    const userAgent = mobile
      ? `Mozilla/5.0 (${PHONE.ua}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${reduced} Mobile Safari/537.36`
      : `Mozilla/5.0 (${OS.ua}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${reduced} Safari/537.36`;
    const brands = chromeBrands(this.version, { brand: BRAND });
    const userAgentMetadata: UserAgentMetadata = {
      brands,
      fullVersionList: chromeBrands(this.version, { brand: BRAND, full: true }),
      fullVersion: this.version,
      platform: mobile ? PHONE.hint : OS.hint,
      platformVersion: mobile ? PHONE.platformVersion : '',
      architecture: mobile ? '' : 'x86',
      model: mobile ? PHONE.model : '',
      mobile,
      bitness: mobile ? '' : '64',
      wow64: false,
      formFactors: [mobile ? 'Mobile' : 'Desktop'],
    };
    const clientHints = {
      'sec-ch-ua': brandHeader(brands),
      'sec-ch-ua-mobile': mobile ? '?1' : '?0',
      'sec-ch-ua-platform': `"${mobile ? PHONE.hint : OS.hint}"`,
    };
    const country = options.gl?.toUpperCase();
    const position = options.geolocate && country ? COUNTRY_POSITIONS[country] : undefined;
    return {
      ...locale,
      browserVersion: this.version,
      userAgent,
      platform: mobile ? PHONE.platform : OS.platform,
      userAgentMetadata,
      clientHints,
      navigation: this.navigation(userAgent, clientHints, locale, mobile),
      ...(mobile
        ? {
            device: {
              viewport: { ...PHONE.viewport },
              deviceScaleFactor: PHONE.deviceScaleFactor,
              isMobile: true as const,
              hasTouch: true as const,
            },
          }
        : {}),
      ...(position ? { geolocation: { latitude: position[0], longitude: position[1] } } : {}),
    };
  }

  /** The process's identity for hl/gl: made once per pair and kept. */
  forLocale(hl?: string, gl?: string): BrowserIdentity {
    const key = `${hl ?? ''}|${gl ?? ''}`;
    let identity = this.kept.get(key);
    if (!identity) {
      identity = this.create({ hl, gl });
      if (this.kept.size >= 1000) this.kept.clear(); // hl×gl pairs are few; this only bounds garbage input
      this.kept.set(key, identity);
    }
    return identity;
  }

  private navigation(
    userAgent: string,
    clientHints: Record<string, string>,
    locale: LocaleIdentity,
    mobile = false,
  ): Record<string, string> {
    const recorded = this.generator.getHeaders({
      browsers: [{ name: 'chrome', maxVersion: this.recordedMajor }],
      operatingSystems: [mobile ? PHONE.generator : OS.generator],
      devices: [mobile ? 'mobile' : 'desktop'],
      locales: [...locale.languages], // a copy: header-generator reorders the array it is given
      httpVersion: '2',
    });
    const ours: Record<string, string> = {
      ...clientHints,
      'user-agent': userAgent,
      'accept-language': locale.acceptLanguage,
      'accept-encoding': DECODED_CODINGS.join(', '),
      'sec-fetch-site': 'none',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-user': '?1',
      'sec-fetch-dest': 'document',
      'upgrade-insecure-requests': '1',
    };
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(recorded)) {
      const lower = name.toLowerCase();
      if (lower === 'dnt') continue; // a per-person setting, not part of the browser
      out[lower] = ours[lower] ?? value;
    }
    for (const [name, value] of Object.entries(ours)) out[name] ??= value;
    return out;
  }
}

/**
 * The headers of a top-level navigation for `identity`: as typed into the address bar, or (with `referer`) as a
 * click from a page of the same site.
 */
export function navigationHeaders(
  identity: BrowserIdentity,
  options: { referer?: string } = {},
): Record<string, string> {
  const headers = { ...identity.navigation };
  if (options.referer) {
    headers['sec-fetch-site'] = 'same-origin';
    headers.referer = options.referer;
  }
  return headers;
}

let shared: BrowserIdentities | undefined;

/**
 * The process's identities, for services without a browser of their own (the HTTP engines): the system Chromium's
 * version when installed, else header-generator's newest recorded Chrome. Made on first use.
 */
export function defaultIdentities(): BrowserIdentities {
  shared ??= new BrowserIdentities();
  return shared;
}

/**
 * Makes `defaultIdentities()` claim `version` from now on, e.g. the version the browser fleet reports, so the HTTP
 * engines and the browsers present one browser. Identities made before keep theirs.
 */
export function useChromeVersion(version: string): BrowserIdentities {
  shared = new BrowserIdentities({ version });
  return shared;
}

/**
 * `useChromeVersion(version)` unless the process already claims it: called with each render reply's version, so an
 * HTTP engine without a browser of its own presents the fleet's Chromium from its first render on.
 */
export function adoptChromeVersion(version: string): void {
  if (shared?.version === version.trim()) return;
  try {
    useChromeVersion(version);
  } catch {
    // not a Chrome version: keep the identity the process has
  }
}
