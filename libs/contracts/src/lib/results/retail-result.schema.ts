import * as s from '../schema/json-schema.builder.js';
import { RESULT_META } from './result-meta.schema.js';

export const MONEY = s.named(
  'Money',
  s.object({ value: s.num('Amount, decimal point normalised.'), currency: s.str('ISO 4217.'), raw: s.str() }),
);
export type Money = s.Infer<typeof MONEY>;

/** A product page's record (POST /extract type `retail`). Our design; the spec shows none (docs/results.md). */
export const RETAIL_RECORD = s.named(
  'RetailRecord',
  s.loose(
    s.object({
      asin: s.nullable(s.str('Amazon Standard Identification Number.')),
      url: s.str('The URL that was extracted.'),
      title: s.str(),
      brand: s.nullable(s.str()),
      price: s.nullable(s.ref(MONEY)),
      list_price: s.nullable(s.ref(MONEY)),
      rating: s.nullable(s.num('Average customer rating, 0–5.')),
      reviews_count: s.nullable(s.int('Number of customer ratings.')),
      availability: s.nullable(s.str('Availability as shown.')),
      in_stock: s.nullable(s.bool('Whether it can be bought now; null when the page does not tell.')),
      main_image: s.nullable(s.str()),
      images: s.described(s.arr(s.str()), 'Gallery images, largest size available, main image first.'),
      features: s.described(s.arr(s.str()), 'The "About this item" bullet points.'),
      description: s.nullable(s.str('Product description text.')),
      categories: s.described(s.arr(s.str()), 'Breadcrumb categories, broadest first.'),
      best_sellers_rank: s.described(
        s.arr(s.object({ category: s.str(), rank: s.int() })),
        'Best Sellers Rank entries, as listed.',
      ),
      seller: s.nullable(s.str('Seller of the buy-box offer.')),
      bought_past_month: s.nullable(s.str('The "bought in past month" figure as shown.')),
      date_first_available: s.nullable(s.str('YYYY-MM-DD when the page date could be read, else as shown.')),
      variants: s.described(
        s.arr(s.object({ asin: s.str('ASIN of the variation.'), label: s.str() })),
        'Variations (size, colour, …) including this product.',
      ),
      specifications: s.described(s.mapOf(s.str()), 'Product information tables as name → value.'),
      /** Only when the request set `meta: true` (see ResultMeta). */
      meta: s.optional(s.ref(RESULT_META)),
    }),
  ),
);
export type RetailRecord = s.Infer<typeof RETAIL_RECORD>;
