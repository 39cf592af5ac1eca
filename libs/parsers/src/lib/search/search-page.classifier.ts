import type { CheerioAPI } from 'cheerio';
import { TrawlError } from '@trawl/contracts';
import { loadPageDom } from '../scan/page-dom.factory.js';
import { UpstreamWallError, WALL_NAMES, type WallKind } from '../wall/upstream-wall.error.js';

/** Wording of Google's block and consent interstitials (several languages). Only counts on a page without results. */
const BLOCK_TEXT = [
  /unusual traffic from your computer network/i,
  /our systems have detected unusual traffic/i,
  /ungewöhnlichen datenverkehr/i,
  /tráfego incomum/i,
  /tráfico inusual/i,
  /trafic inhabituel/i,
  /traffico insolito/i,
  /not a robot/i,
  /sending automated queries/i,
  /automatisierte anfragen/i,
];
const CONSENT_TEXT = [
  /before you continue to google/i,
  /bevor sie zu google weitergehen/i,
  /avant d'accéder à google/i,
  /antes de ir a google/i,
  /antes de continuar para o google/i,
  /we use cookies and data to/i,
];

/** Structure every results page has, JS or no-JS, with or without results. */
function looksLikeResultsPage($: CheerioAPI): boolean {
  if ($('#search, #rso, #res, #center_col, #botstuff, #topstuff').length > 0) return true;
  if ($('a[href^="/url?q="], a[href*="google.com/url?q="]').length > 0) return true;
  const searchForm = $('form[action="/search"], form[action$="google.com/search"], form[role="search"]').length > 0;
  if (searchForm && $('#main, [role="main"]').length > 0 && $('[name="q"]').length > 0) return true;
  // An unfamiliar layout: still a Google page (its title says so) with result-like title links and a query box.
  return /google/i.test($('title').first().text()) && $('a[href] h3').length > 0 && $('[name="q"]').length > 0;
}

/** A wall found on a page that is not a results page, with the message that names it. */
interface FoundWall {
  wall: WallKind;
  message: string;
}

const UNUSUAL = WALL_NAMES['unusual-traffic'];

/** Which wall a page that is not a results page is, if any. */
function searchWallOf($: CheerioAPI): FoundWall | undefined {
  const captcha =
    $('form#captcha-form, form[action*="/sorry/"], #recaptcha.g-recaptcha, div.g-recaptcha, script[src*="recaptcha/"]')
      .length > 0;
  // consent.google.com's forms carry `continue` (the search URL) too: they count before the bare `continue` marker.
  const consentForm =
    $('form[action*="consent.google."], form[action*="consent.youtube."], iframe[src*="consent.google."]').length > 0 ||
    $('form[action*="consent"][action$="/save"], form input[name="set_eom"]').length > 0;
  const sorryContinue = $('input[name="continue"][value*="/search"]').length > 0;
  const bodyText = $('body').text();

  if (captcha) {
    return { wall: 'unusual-traffic', message: `Google answered with its ${UNUSUAL} (captcha) instead of results` };
  }
  const consent: FoundWall = {
    wall: 'consent',
    message: `Google answered with its ${WALL_NAMES.consent} ("Before you continue") instead of results`,
  };
  if (consentForm) return consent;
  if (BLOCK_TEXT.some((re) => re.test(bodyText))) {
    return {
      wall: 'unusual-traffic',
      message: `Google answered with its ${UNUSUAL} ("unusual traffic" block) instead of results`,
    };
  }
  if (sorryContinue) {
    return { wall: 'unusual-traffic', message: `Google answered with its ${UNUSUAL} (captcha) instead of results` };
  }
  if (CONSENT_TEXT.some((re) => re.test(bodyText))) return consent;
  // Since 2025 a client without JavaScript gets a redirect to /httpservice/retry/enablejs instead of results.
  if ($('meta[http-equiv="refresh" i][content*="enablejs"], a[href*="/httpservice/retry/enablejs"]').length > 0) {
    return {
      wall: 'enable-javascript',
      message: `Google answered with its ${WALL_NAMES['enable-javascript']} (a refresh to /httpservice/retry/enablejs) instead of results`,
    };
  }
  if (/\/sorry\//.test($('title').text())) {
    return { wall: 'unusual-traffic', message: `Google answered with its ${UNUSUAL} (/sorry/) instead of results` };
  }
  return undefined;
}

/**
 * The wall a Google search answer is instead of results (`enable-javascript`, `unusual-traffic`, `consent`), or
 * undefined for a results page (with or without results) and for a page that is no wall. Pure.
 */
export function classifySearchWall(html: string): WallKind | undefined {
  const $ = loadPageDom(html);
  return looksLikeResultsPage($) ? undefined : searchWallOf($)?.wall;
}

/**
 * Throws UPSTREAM_BLOCKED (retryable, an UpstreamWallError naming the wall) for the /sorry/ captcha page, reCAPTCHA
 * forms, the consent interstitial and the enable-JavaScript wall; PAGE_NOT_RECOGNISED for anything that is not a
 * Google results page. A results page that simply has no results passes.
 */
export function assertSearchPage($: CheerioAPI): void {
  if (looksLikeResultsPage($)) return;
  const found = searchWallOf($);
  if (found) throw new UpstreamWallError(found.wall, found.message);
  throw new TrawlError('PAGE_NOT_RECOGNISED', 'The page is not a Google web search results page');
}
