import { describe, expect, it } from '@jest/globals';
import { completeness, emptyFields, fieldPresence } from './field-presence.js';

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
