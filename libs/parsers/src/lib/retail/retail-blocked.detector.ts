import { TrawlError } from '@trawl/contracts';
import { UpstreamWallError, WALL_NAMES, type WallKind } from '../wall/upstream-wall.error.js';
import { clean } from './retail-dom.util.js';
import { loadRetailPage, type RetailPage } from './retail-page.reader.js';

const ROBOT_CHECK_TEXT = [
  /enter the characters you see below/i,
  /type the characters you see in this image/i,
  /sorry, we just need to make sure you'?re not a robot/i,
  /to discuss automated access to amazon data/i,
  /click the button below to continue shopping/i,
  /geben sie die zeichen unten ein/i,
  /saisissez les caractères que vous voyez/i,
  /introduce los caracteres que ves/i,
];

type Verdict = { wall: WallKind; message: string } | { notFound: string } | undefined;

const PRODUCT = 'instead of the product page';

function detect({ $, q }: RetailPage, bodyText: string, html: string): Verdict {
  const hasProduct = q('#productTitle, #title, #ebooksProductTitle').length > 0;
  const strong =
    $('form[action*="validateCaptcha"], input#captchacharacters, img[src*="/captcha/"]').length > 0 ||
    /^\s*robot check\s*$/i.test($('title').first().text()) ||
    (!hasProduct && /AwsWafCaptcha|captcha\.awswaf\.com/i.test(html));
  if (strong) {
    return {
      wall: 'unusual-traffic',
      message: `Amazon answered with its robot check (${WALL_NAMES['unusual-traffic']}, captcha) ${PRODUCT}`,
    };
  }
  if (!hasProduct && /gokuProps|AwsWafIntegration|awswaf\.com/i.test(html)) {
    return {
      wall: 'javascript-challenge',
      message: `Amazon answered with its ${WALL_NAMES['javascript-challenge']} (AWS WAF) ${PRODUCT}`,
    };
  }
  if (
    !hasProduct &&
    (/api-services-support@amazon\.com/i.test(html) || ROBOT_CHECK_TEXT.some((re) => re.test(bodyText)))
  ) {
    return {
      wall: 'unusual-traffic',
      message: `Amazon answered with its robot check (${WALL_NAMES['unusual-traffic']}) ${PRODUCT}`,
    };
  }
  if (hasProduct) return undefined;
  if ($('a[href*="cs_503_link"], a[href*="ref=cs_503"]').length > 0 || /sorry! something went wrong/i.test(bodyText)) {
    return { wall: 'throttling', message: `Amazon answered with its "something went wrong" ${WALL_NAMES.throttling}` };
  }
  if (
    $('a[href*="cs_404_link"], a[href*="ref=cs_404"]').length > 0 ||
    /not a functioning page on our site/i.test(bodyText)
  ) {
    return { notFound: 'Amazon answered that the page does not exist (its 404 page)' };
  }
  return undefined;
}

/**
 * The wall an Amazon answer is instead of a product page: `unusual-traffic` (robot check, captcha),
 * `javascript-challenge` (AWS WAF), `throttling` (503 "something went wrong"); undefined otherwise. Pure.
 */
export function classifyRetailWall(html: string): WallKind | undefined {
  const page = loadRetailPage(html);
  const verdict = detect(page, clean(page.$('body').text() || page.$.root().text()), html);
  return verdict && 'wall' in verdict ? verdict.wall : undefined;
}

/**
 * Throws UPSTREAM_BLOCKED (an UpstreamWallError naming the wall) for Amazon's robot check (the captcha form posting
 * to /errors/validateCaptcha, its title "Robot Check", its wording in a few languages, the AWS WAF captcha), the AWS
 * WAF JavaScript challenge and its 503 "something went wrong" throttling page, and UPSTREAM_NOT_FOUND for its 404
 * "Looking for something?" page. Strong markers count anywhere; wording and challenge scripts count only on a page
 * without a product title, so a product whose text quotes them is not mistaken for a block.
 */
export function assertNotBlocked(page: RetailPage, bodyText: string, html: string): void {
  const verdict = detect(page, bodyText, html);
  if (!verdict) return;
  if ('notFound' in verdict) throw new TrawlError('UPSTREAM_NOT_FOUND', verdict.notFound);
  throw new UpstreamWallError(verdict.wall, verdict.message);
}
