import type { ResultMeta } from './result-meta.types.js';
/** A product page's record (POST /extract type `retail`). Our design; the spec shows none (docs/results.md). */
export interface RetailRecord {
  asin: string | null;
  url: string;
  title: string;
  brand: string | null;
  price: Money | null;
  list_price: Money | null;
  rating: number | null;
  reviews_count: number | null;
  availability: string | null;
  in_stock: boolean | null;
  main_image: string | null;
  images: string[];
  features: string[];
  description: string | null;
  categories: string[];
  best_sellers_rank: { category: string; rank: number }[];
  seller: string | null;
  bought_past_month: string | null;
  date_first_available: string | null;
  variants: { asin: string; label: string }[];
  specifications: Record<string, string>;
  /** Only when the request set `meta: true` (see ResultMeta). */
  meta?: ResultMeta;
}

export interface Money {
  value: number;
  currency: string;
  raw: string;
}
