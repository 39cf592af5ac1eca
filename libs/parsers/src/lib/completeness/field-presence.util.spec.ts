import { describe, expect, it } from '@jest/globals';
import {
  classifyRecord,
  completeness,
  emptyFields,
  fieldPresence,
  PARSER_VERSION,
  withResultMeta,
} from './field-presence.util.js';

describe('field presence', () => {
  it('counts top-level fields and the fields of list items (present when every item has it)', () => {
    const record = {
      title: 'Kettle',
      rating: 0,
      in_stock: false,
      price: null,
      about: '[]',
      results: [
        { title: 'a', date: '' },
        { title: 'b', date: '2021-01-01' },
      ],
      searchParameters: { q: 'x' },
    };
    expect(fieldPresence(record)).toEqual({
      title: true,
      rating: false,
      in_stock: true,
      price: false,
      about: false,
      results: true,
      'results[].title': true,
      'results[].date': false,
    });
    expect(emptyFields(record)).toEqual(['rating', 'price', 'about', 'results[].date']);
  });

  it('rates each field over the records, a field missing from a record counting as empty', () => {
    expect(completeness([{ a: 1, b: 'x' }, { a: 2 }])).toEqual({
      a: { filled: 2, pages: 2, rate: 1 },
      b: { filled: 1, pages: 2, rate: 0.5 },
    });
  });
});

describe('the meta block and the record kind', () => {
  const retail = { asin: 'B0TEST0001', best_sellers_rank: [], title: 'Kettle', price: null };

  it('names the parser, its version and the empty fields, only when asked', () => {
    expect(withResultMeta(retail, false)).toBe(retail);
    expect(withResultMeta(retail, true)).toEqual({
      ...retail,
      meta: { parser: 'retail', parserVersion: PARSER_VERSION, emptyFields: ['best_sellers_rank', 'price'] },
    });
  });

  it('tells the parser from the record shape', () => {
    expect(classifyRecord({ results: [], location: { htmlLang: 'en' } })?.parser).toBe('search');
    expect(classifyRecord({ organicResults: [] })?.parser).toBe('maps-search');
    expect(classifyRecord({ mp_company_name: 'x' })?.parser).toBe('maps-place');
    expect(classifyRecord(retail)?.parser).toBe('retail');
    expect(classifyRecord({ markdown: '' })).toBeUndefined();
  });
});
