import type { CheerioAPI } from 'cheerio';
import { TrawlError } from '@trawl/contracts';

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

/**
 * Throws UPSTREAM_BLOCKED (retryable) for the /sorry/ captcha page, reCAPTCHA forms and the consent.google.com
 * interstitial; PAGE_NOT_RECOGNISED for anything that is not a Google results page. A results page that simply has
 * no results passes.
 */
export function assertSearchPage($: CheerioAPI): void {
  if (looksLikeResultsPage($)) return;
  const strongBlock =
    $('form#captcha-form, form[action*="/sorry/"], #recaptcha.g-recaptcha, div.g-recaptcha, script[src*="recaptcha/"]').length > 0 ||
    $('form[action*="/sorry/index"], input[name="continue"][value*="/search"]').length > 0;
  const consent =
    $('form[action*="consent.google."], form[action*="consent.youtube."], iframe[src*="consent.google."]').length > 0;
  const bodyText = $('body').text();

  if (strongBlock) {
    throw new TrawlError('UPSTREAM_BLOCKED', 'Google answered with its captcha ("unusual traffic") page instead of results');
  }
  if (BLOCK_TEXT.some((re) => re.test(bodyText))) {
    throw new TrawlError('UPSTREAM_BLOCKED', 'Google answered with its "unusual traffic" block page instead of results');
  }
  if (consent || CONSENT_TEXT.some((re) => re.test(bodyText))) {
    throw new TrawlError('UPSTREAM_BLOCKED', 'Google answered with its cookie-consent interstitial instead of results');
  }
  // Since 2025 a client without JavaScript gets a redirect to /httpservice/retry/enablejs instead of results.
  if ($('meta[http-equiv="refresh" i][content*="enablejs"], a[href*="/httpservice/retry/enablejs"]').length > 0) {
    throw new TrawlError('UPSTREAM_BLOCKED', 'Google asked for JavaScript (enablejs redirect) instead of answering with results');
  }
  if (/\/sorry\//.test($('title').text())) {
    throw new TrawlError('UPSTREAM_BLOCKED', 'Google answered with its /sorry/ block page instead of results');
  }
  throw new TrawlError('PAGE_NOT_RECOGNISED', 'The page is not a Google web search results page');
}
