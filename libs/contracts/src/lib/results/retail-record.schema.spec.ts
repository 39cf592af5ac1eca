import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { RetailRecordSchema } from './retail-record.schema.js';
import type { RetailRecord } from './retail-result.types.js';

/** Where @nestjs/swagger keeps the names of a class's @ApiProperty fields (`:name`). */
const API_PROPERTIES = 'swagger/apiModelPropertiesArray';

// Typed as RetailRecord, so a field added to the contract must be added here too (and then to the schema).
const sample: RetailRecord = {
  asin: null,
  url: '',
  title: '',
  brand: null,
  price: null,
  list_price: null,
  rating: null,
  reviews_count: null,
  availability: null,
  in_stock: null,
  main_image: null,
  images: [],
  features: [],
  description: null,
  categories: [],
  best_sellers_rank: [],
  seller: null,
  bought_past_month: null,
  date_first_available: null,
  variants: [],
  specifications: {},
};

describe('RetailRecordSchema', () => {
  it('documents every field of RetailRecord for the OpenAPI document', () => {
    const names = (Reflect.getMetadata(API_PROPERTIES, RetailRecordSchema.prototype) as string[]).map((n) =>
      n.replace(/^:/, ''),
    );
    expect(names.sort()).toEqual(Object.keys(sample).sort());
  });
});
