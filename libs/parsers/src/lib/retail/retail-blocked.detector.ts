import { TrawlError } from '@trawl/contracts';
import type { RetailPage } from './retail-page.js';

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

/**
 * Throws UPSTREAM_BLOCKED for Amazon's robot check (the captcha form posting to /errors/validateCaptcha, its title
 * "Robot Check", its wording in a few languages, the AWS WAF JavaScript challenge that replaced it on some stores)
 * and its 503 "something went wrong" throttling page, and
 * UPSTREAM_NOT_FOUND for its 404 "Looking for something?" page. Strong markers count anywhere; wording counts only
 * on a page without a product title, so a product whose text quotes it is not mistaken for a block.
 */
export function assertNotBlocked({ $, q }: RetailPage, bodyText: string, html: string): void {
  const hasProduct = q('#productTitle, #title, #ebooksProductTitle').length > 0;
  const strong =
    $('form[action*="validateCaptcha"], input#captchacharacters, img[src*="/captcha/"]').length > 0 ||
    /^\s*robot check\s*$/i.test($('title').first().text());
  const challenge =
    !hasProduct && /gokuProps|AwsWafIntegration|awswaf\.com|api-services-support@amazon\.com/i.test(html);
  if (strong || challenge || (!hasProduct && ROBOT_CHECK_TEXT.some((re) => re.test(bodyText)))) {
    throw new TrawlError(
      'UPSTREAM_BLOCKED',
      'Amazon answered with its robot check (captcha) instead of the product page',
    );
  }
  if (hasProduct) return;
  if ($('a[href*="cs_503_link"], a[href*="ref=cs_503"]').length > 0 || /sorry! something went wrong/i.test(bodyText)) {
    throw new TrawlError('UPSTREAM_BLOCKED', 'Amazon answered with its "something went wrong" throttling page');
  }
  if (
    $('a[href*="cs_404_link"], a[href*="ref=cs_404"]').length > 0 ||
    /not a functioning page on our site/i.test(bodyText)
  ) {
    throw new TrawlError('UPSTREAM_NOT_FOUND', 'Amazon answered that the page does not exist (its 404 page)');
  }
}
