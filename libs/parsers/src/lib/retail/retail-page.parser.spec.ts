import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { TrawlError } from '@trawl/contracts';
import { parseProductPage } from './retail-page.parser.js';

const page = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

function errorOf(fn: () => unknown): TrawlError | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof TrawlError) return e;
    throw e;
  }
  return undefined;
}
const codeOf = (fn: () => unknown) => errorOf(fn)?.code;

describe('parseProductPage', () => {
  it('reads every field of a 2025 amazon.ae page from ids, embedded JSON and the detail tables', () => {
    const url = 'https://www.amazon.ae/dp/B0TESTAE01?th=1';
    expect(parseProductPage(page('product-2025-ae.html'), { url })).toEqual({
      asin: 'B0TESTAE01',
      url,
      title: 'Acme Trail Kettle 1.2 L, Stainless Steel, Blue',
      brand: 'Acme',
      price: { value: 1249.5, currency: 'AED', raw: 'AED 1,249.50' },
      list_price: { value: 1499, currency: 'AED', raw: 'AED1,499.00' },
      rating: 4.6,
      reviews_count: 12408,
      availability: 'In Stock',
      in_stock: true,
      main_image: 'https://m.media-amazon.com/images/I/71aaaMainA._AC_SL1500_.jpg',
      images: [
        'https://m.media-amazon.com/images/I/71aaaMainA._AC_SL1500_.jpg',
        'https://m.media-amazon.com/images/I/41bbbLargeB._AC_.jpg',
        'https://m.media-amazon.com/images/I/71cccSideC._AC_SL1500_.jpg',
      ],
      features: [
        'Boils 1.2 L in under four minutes.',
        'Double-wall body stays cool to the touch.',
        'Auto shut-off and boil-dry protection.',
      ],
      description: 'A kettle for the trail and the kitchen. Made from 18/8 stainless steel.',
      categories: ['Kitchen', 'Small Appliances', 'Kettles'],
      best_sellers_rank: [
        { category: 'Kitchen', rank: 1204 },
        { category: 'Electric Kettles', rank: 7 },
      ],
      seller: 'Acme Home Trading LLC',
      bought_past_month: '2K+',
      date_first_available: '2023-03-14',
      variants: [
        { asin: 'B0TESTAE01', label: 'Blue / 1.2 L' },
        { asin: 'B0TESTAE02', label: 'Red / 1.2 L' },
        { asin: 'B0TESTAE03', label: 'Green "Sage" / 1.7 L' },
      ],
      specifications: {
        Brand: 'Acme',
        'Model Number': 'TK-12',
        Capacity: '1.2 Liters',
        ASIN: 'B0TESTAE01',
        'Date First Available': '14 March 2023',
      },
    });
  });

  it('reads a 2019 amazon.com page: priceblock ids, strike list price, pdTab details, swatches by data-defaultasin and dp-url, A+ description', () => {
    const r = parseProductPage(page('product-2019-com.html'), { url: 'https://www.amazon.com/gp/product/B0TEST2019' });
    expect(r.asin).toBe('B0TEST2019');
    expect(r.title).toBe('Nimbus Desk Lamp, LED, Dimmable');
    expect(r.brand).toBe('Nimbus');
    expect(r.price).toEqual({ value: 34.99, currency: 'USD', raw: '$34.99' });
    expect(r.list_price).toEqual({ value: 49.99, currency: 'USD', raw: '$49.99' });
    expect(r.rating).toBe(3.9);
    expect(r.reviews_count).toBe(1017);
    expect(r.availability).toBe('Only 3 left in stock - order soon.');
    expect(r.in_stock).toBe(true);
    expect(r.seller).toBe('Amazon.com');
    expect(r.main_image).toBe('https://images-na.ssl-images-amazon.com/images/I/61lampMain._AC_SX679_.jpg');
    expect(r.images).toEqual([
      'https://images-na.ssl-images-amazon.com/images/I/61lampMain._AC_SX679_.jpg',
      'https://images-na.ssl-images-amazon.com/images/I/31lampThumb1.jpg',
      'https://images-na.ssl-images-amazon.com/images/I/31lampThumb2.jpg',
    ]);
    expect(r.features).toEqual(['Five brightness levels.', 'USB charging port in the base.']);
    expect(r.categories).toEqual([]);
    expect(r.best_sellers_rank).toEqual([
      { category: 'Tools & Home Improvement', rank: 3456 },
      { category: 'Desk Lamps', rank: 12 },
    ]);
    expect(r.date_first_available).toBe('2018-11-02');
    expect(r.variants).toEqual([
      { asin: 'B0TEST2019', label: 'White' },
      { asin: 'B0TEST2020', label: 'Black' },
    ]);
    expect(r.specifications).toEqual({
      'Item Weight': '2.1 pounds',
      'Item model number': 'NB-100',
      ASIN: 'B0TEST2019',
      'Date First Available': 'November 2, 2018',
    });
    // No #productDescription: the A+ content's text blocks, without its carousel controls, comparison table,
    // repeated blocks and the brand story.
    expect(r.description).toBe('Light that follows your day Warm in the evening, cool at the desk. Touch dimmer');
    expect(r.bought_past_month).toBeNull();
  });

  it('reads a 2021 amazon.com page: apex price table, tabular buy box, size drop-down, detail bullets with ranks', () => {
    const r = parseProductPage(page('product-2021-com.html'), { url: 'https://www.amazon.com/dp/B0TEST2021' });
    expect(r.asin).toBe('B0TEST2021');
    expect(r.brand).toBe('Ridgeline');
    expect(r.price).toEqual({ value: 24.9, currency: 'USD', raw: '$24.90' });
    expect(r.list_price).toEqual({ value: 39.9, currency: 'USD', raw: '$39.90' });
    expect(r.rating).toBe(4.7);
    expect(r.reviews_count).toBe(98310);
    expect(r.seller).toBe('Amazon.com');
    expect(r.in_stock).toBe(true);
    expect(r.main_image).toBe('https://m.media-amazon.com/images/I/81skillet1L._AC_SL1500_.jpg');
    expect(r.categories).toEqual(['Home & Kitchen', 'Kitchen & Dining']);
    expect(r.variants).toEqual([
      { asin: 'B0TEST2010', label: '10 Inch' },
      { asin: 'B0TEST2021', label: '12 Inch' },
    ]);
    expect(r.best_sellers_rank).toEqual([
      { category: 'Kitchen & Dining', rank: 52 },
      { category: 'Skillets', rank: 1 },
    ]);
    expect(r.date_first_available).toBe('2016-03-09');
    expect(r.specifications).toEqual({
      'Product Dimensions': '20.5 x 12 x 2 inches; 8 Pounds',
      'Date First Available': 'March 9, 2016',
      ASIN: 'B0TEST2021',
    });
  });

  it('reads a page whose scripts were emptied (amazon.de): decimal-comma euro prices, German labels, DOM swatches', () => {
    const r = parseProductPage(page('product-no-scripts-de.html'), { url: 'https://www.amazon.de/dp/B0TESTDE01' });
    expect(r.asin).toBe('B0TESTDE01');
    expect(r.brand).toBe('Küchenprofi');
    expect(r.price).toEqual({ value: 1299, currency: 'EUR', raw: '1.299,00€' });
    expect(r.list_price).toEqual({ value: 1499, currency: 'EUR', raw: '1.499,00 €' });
    expect(r.rating).toBe(4.2);
    expect(r.reviews_count).toBe(1873);
    expect(r.in_stock).toBe(true);
    expect(r.seller).toBe('Amazon');
    expect(r.main_image).toBe('https://m.media-amazon.com/images/I/61juicerA._AC_SL1200_.jpg');
    expect(r.images).toEqual([
      'https://m.media-amazon.com/images/I/61juicerA._AC_SL1200_.jpg',
      'https://m.media-amazon.com/images/I/31juicerA.jpg',
      'https://m.media-amazon.com/images/I/31juicerB.jpg',
    ]);
    expect(r.categories).toEqual(['Küche, Haushalt & Wohnen', 'Entsafter']);
    expect(r.best_sellers_rank).toEqual([
      { category: 'Küche, Haushalt & Wohnen', rank: 1234 },
      { category: 'Entsafter', rank: 5 },
    ]);
    expect(r.date_first_available).toBe('2021-03-12');
    expect(r.variants).toEqual([
      { asin: 'B0TESTDE01', label: '800 W' },
      { asin: 'B0TESTDE02', label: '1000 W' },
    ]);
    expect(r.specifications).toMatchObject({
      Produktabmessungen: '30 x 20 x 40 cm; 3,2 kg',
      Hersteller: 'Küchenprofi GmbH',
    });
  });

  it('leaves price, rating and review count null on an unavailable product with no reviews, ignoring carousel prices', () => {
    const r = parseProductPage(page('product-unavailable.html'), { url: 'https://www.amazon.ae/dp/B0TESTOUT1' });
    expect(r.asin).toBe('B0TESTOUT1');
    expect(r.brand).toBe('Orbit');
    expect(r.price).toBeNull();
    expect(r.list_price).toBeNull();
    expect(r.rating).toBeNull();
    expect(r.reviews_count).toBeNull();
    expect(r.availability).toBe('Currently unavailable.');
    expect(r.in_stock).toBe(false);
    expect(r.main_image).toBe('https://m.media-amazon.com/images/I/51orbit._AC_SX300_.jpg');
    expect(r.variants).toEqual([]);
    expect(r.specifications).toEqual({});
  });

  it('throws UPSTREAM_BLOCKED (retryable) for the robot check page', () => {
    const error = errorOf(() =>
      parseProductPage(page('captcha.html'), { url: 'https://www.amazon.com/dp/B0TESTAE01' }),
    );
    expect(error?.code).toBe('UPSTREAM_BLOCKED');
    expect(error?.retryable).toBe(true);
  });

  it('throws UPSTREAM_BLOCKED for the newer "continue shopping" challenge without a captcha image', () => {
    const html = `<html><body><h4>Click the button below to continue shopping</h4>
      <form method="get" action="/errors/validateCaptcha"><button type="submit">Continue shopping</button></form></body></html>`;
    expect(codeOf(() => parseProductPage(html, { url: 'https://www.amazon.com/dp/B0TESTAE01' }))).toBe(
      'UPSTREAM_BLOCKED',
    );
  });

  it('throws UPSTREAM_BLOCKED for the AWS WAF JavaScript challenge page (no captcha form, no product)', () => {
    const html = `<html><head><script>window.gokuProps = { "key": "AQIDAHj", "iv": "CgAHRS", "context": "x" };</script>
      <script src="https://3e3378af7cd0.cd2a4d7b.us-east-1.token.awswaf.com/3e3378af7cd0/challenge.js"></script></head>
      <body><div id="challenge-container"></div><noscript>JavaScript is disabled</noscript></body></html>`;
    expect(codeOf(() => parseProductPage(html, { url: 'https://www.amazon.com/dp/B0TESTAE01' }))).toBe(
      'UPSTREAM_BLOCKED',
    );
  });

  it('throws UPSTREAM_BLOCKED for the 503 "something went wrong" throttling page', () => {
    const html = `<html><head><title>Sorry! Something went wrong!</title></head><body>
      <a href="/ref=cs_503_link"><img alt="Sorry! Something went wrong on our end."></a></body></html>`;
    expect(codeOf(() => parseProductPage(html, { url: 'https://www.amazon.com/dp/B0TESTAE01' }))).toBe(
      'UPSTREAM_BLOCKED',
    );
  });

  it('throws UPSTREAM_NOT_FOUND for the 404 "not a functioning page" page', () => {
    const html = `<html><head><title>Page Not Found</title></head><body><a href="/ref=cs_404_link">
      <img alt="Sorry! We couldn't find that page. The Web address you entered is not a functioning page on our site."></a>
      <p>The Web address you entered is not a functioning page on our site.</p></body></html>`;
    expect(codeOf(() => parseProductPage(html, { url: 'https://www.amazon.com/dp/B0TESTAE01' }))).toBe(
      'UPSTREAM_NOT_FOUND',
    );
  });

  it('throws PAGE_NOT_RECOGNISED for a page that is not a product page (a search results page, an empty page)', () => {
    expect(
      codeOf(() => parseProductPage(page('search-results.html'), { url: 'https://www.amazon.com/s?k=kettle' })),
    ).toBe('PAGE_NOT_RECOGNISED');
    expect(codeOf(() => parseProductPage('', { url: 'https://www.amazon.com/dp/B0TESTAE01' }))).toBe(
      'PAGE_NOT_RECOGNISED',
    );
  });

  it('does not mistake a product page quoting the robot-check wording (in a review) for a block', () => {
    const html = page('product-unavailable.html').replace(
      '</body>',
      '<div class="review-text">It said "Enter the characters you see below" twice before I could order.</div></body>',
    );
    expect(parseProductPage(html, { url: 'https://www.amazon.ae/dp/B0TESTOUT1' }).title).toBe(
      'Orbit Cordless Vacuum V8',
    );
  });
});
