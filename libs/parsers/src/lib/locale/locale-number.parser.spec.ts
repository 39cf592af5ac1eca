import { describe, expect, it } from '@jest/globals';
import { parseLocaleDate } from './locale-date.parser.js';
import { numberSymbols, parseLocaleCount, parseLocaleNumber, parseLocaleRating } from './locale-number.parser.js';

const NBSP = '\u00a0';
const NNBSP = '\u202f';

describe('locale numbers (separators from ICU)', () => {
  it('takes decimal and group separators from Intl for each locale', () => {
    expect(numberSymbols('en-US')).toEqual({ decimal: '.', group: ',' });
    expect(numberSymbols('de-DE')).toEqual({ decimal: ',', group: '.' });
    expect(numberSymbols('fr-FR')).toEqual({ decimal: ',', group: NNBSP });
    expect(numberSymbols('pt_BR')).toEqual({ decimal: ',', group: '.' });
  });

  it.each([
    ['4,5', 'de-DE', 4.5],
    ['5,0', 'pt-BR', 5],
    ['1.234', 'de-DE', 1234],
    ['1.234', 'en-US', 1.234],
    [`12${NNBSP}345,5`, 'fr-FR', 12345.5],
    [`12${NBSP}345`, 'fr-FR', 12345],
    [`1${NBSP}234${NBSP}567`, 'es-ES', 1234567],
    ['1,23,456.75', 'en-IN', 123456.75],
    ['1,234.5', 'ja-JP', 1234.5],
    ['1.234,5', undefined, 1234.5],
  ])('reads %s in %s as %d', (text, locale, value) => {
    expect(parseLocaleNumber(text, locale)).toBe(value);
  });

  it("falls back to the number's shape when the text contradicts the locale", () => {
    expect(parseLocaleNumber('1,234.50', 'de-DE')).toBe(1234.5);
  });

  it.each([
    ['17,059', 17059],
    ['(1.020)', 1020],
    [`3${NNBSP}412 avis`, 3412],
    [`3${NBSP}412 Rezensionen`, 3412],
    ['1,23,456 ratings', 123456],
    ['2,3 k', 2300],
    ['1.2K', 1200],
    [`12${NBSP}345 et 6`, 12345],
  ])('reads the count %s as %d', (text, value) => {
    expect(parseLocaleCount(text)).toBe(value);
  });

  it('reads ratings written with a decimal comma and local words', () => {
    expect(parseLocaleRating('5,0 von 5 Sternen', 'de-DE')).toBe(5);
    expect(parseLocaleRating('4,6 étoiles', 'fr-FR')).toBe(4.6);
    expect(parseLocaleRating('5つ星のうち4.3', 'ja-JP')).toBe(4.3);
    expect(parseLocaleRating('12 stars')).toBeUndefined();
  });
});

describe('locale dates (month names from ICU)', () => {
  it.each([
    ['12 mars 2021', 'fr-FR', '2021-03-12'],
    ['12. März 2021', 'de-DE', '2021-03-12'],
    ['12 de marzo de 2021', 'es-ES', '2021-03-12'],
    ['12 de março de 2021', 'pt-BR', '2021-03-12'],
    ['March 12, 2021', 'en-US', '2021-03-12'],
    ['12 Sept. 2021', 'en-GB', '2021-09-12'],
    ['2021/3/12', 'ja-JP', '2021-03-12'],
    ['1 juil. 2020', 'fr-FR', '2020-07-01'],
  ])('reads %s (%s) as %s', (text, locale, iso) => {
    expect(parseLocaleDate(text, locale)).toBe(iso);
  });
});
