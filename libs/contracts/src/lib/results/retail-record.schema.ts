import { ApiProperty } from '@nestjs/swagger';
import type { Money, RetailRecord } from './retail-result.types.js';

/** OpenAPI shape of a price (`Money`). */
class RetailMoneySchema implements Money {
  @ApiProperty({ description: 'Amount as a number, decimal point normalised.', example: 30.99 })
  value!: number;

  @ApiProperty({ description: 'ISO 4217 currency code.', example: 'AED' })
  currency!: string;

  @ApiProperty({ description: 'The price as the page shows it.', example: 'AED 30.99' })
  raw!: string;
}

class RetailBestSellersRankSchema {
  @ApiProperty({ example: 'Mobile Phone Screen Protectors' })
  category!: string;

  @ApiProperty({ example: 2 })
  rank!: number;
}

class RetailVariantSchema {
  @ApiProperty({ description: 'ASIN of the variation.', example: 'B0DBZR3TX7' })
  asin!: string;

  @ApiProperty({ description: 'Its dimension values, joined with " / ".', example: 'iPhone 16 6.1-Inch' })
  label!: string;
}

/** OpenAPI document of `RetailRecord`: the `data` of POST /extract with type `retail` (an Amazon product page). */
export class RetailRecordSchema implements RetailRecord {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Amazon Standard Identification Number.',
    example: 'B0DBZPXJRH',
  })
  asin!: string | null;

  @ApiProperty({ description: 'The URL that was extracted.', example: 'https://www.amazon.ae/dp/B0DBZPXJRH' })
  url!: string;

  @ApiProperty({ example: 'JETech Screen Protector for iPhone 16 Pro Max 6.9-Inch, Tempered Glass Film, 3-Pack' })
  title!: string;

  @ApiProperty({ type: String, nullable: true, example: 'JETech' })
  brand!: string | null;

  @ApiProperty({ type: () => RetailMoneySchema, nullable: true, description: 'The price to pay (buy box).' })
  price!: Money | null;

  @ApiProperty({
    type: () => RetailMoneySchema,
    nullable: true,
    description: 'The list (strike-through) price, when higher than the price.',
  })
  list_price!: Money | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Average customer rating, 0–5.', example: 4.3 })
  rating!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Number of customer ratings.', example: 21049 })
  reviews_count!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'Availability as shown.', example: 'In Stock' })
  availability!: string | null;

  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'Whether it can be bought now; null when the page does not tell.',
  })
  in_stock!: boolean | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://m.media-amazon.com/images/I/71B7WFLtovL._AC_SL1500_.jpg',
  })
  main_image!: string | null;

  @ApiProperty({ type: [String], description: 'Gallery images, largest size available, main image first.' })
  images!: string[];

  @ApiProperty({ type: [String], description: 'The "About this item" bullet points.' })
  features!: string[];

  @ApiProperty({ type: String, nullable: true, description: 'Product description text.' })
  description!: string | null;

  @ApiProperty({
    type: [String],
    description: 'Breadcrumb categories, broadest first.',
    example: ['Electronics', 'Accessories', 'Screen Protectors'],
  })
  categories!: string[];

  @ApiProperty({ type: () => [RetailBestSellersRankSchema], description: 'Best Sellers Rank entries, as listed.' })
  best_sellers_rank!: { category: string; rank: number }[];

  @ApiProperty({ type: String, nullable: true, description: 'Seller of the buy-box offer.', example: 'JE Products AE' })
  seller!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The "bought in past month" figure as shown.',
    example: '500+',
  })
  bought_past_month!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'YYYY-MM-DD when the page date could be read, else as shown.',
    example: '2024-08-06',
  })
  date_first_available!: string | null;

  @ApiProperty({
    type: () => [RetailVariantSchema],
    description: 'Variations (size, colour, …) including this product.',
  })
  variants!: { asin: string; label: string }[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Product information tables as name → value.',
    example: { Brand: 'JETech', 'Item Weight': '40.5 g' },
  })
  specifications!: Record<string, string>;
}
