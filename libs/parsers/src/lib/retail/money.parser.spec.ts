import { describe, expect, it } from '@jest/globals';
import { currencyOf, parseAmount, parseMoney, storeCurrency } from './money.parser.js';

describe('parseAmount', () => {
  it.each([
    ['30.99', 30.99],
    ['AED 1,249.50', 1249.5],
    ['1.299,00 €', 1299],
    ['26,00', 26],
    ['1 234,56 zł', 1234.56],
    ['1,234', 1234],
    ['1.234.567', 1234567],
    ['$9.98$9.98', 9.98],
    ['¥1,980', 1980],
    ['35', 35],
  ])('reads %s as %d (thousands separators and decimal commas)', (text, value) => {
    expect(parseAmount(text)).toBe(value);
  });

  it('answers undefined when there is no number', () => {
    expect(parseAmount('Currently unavailable')).toBeUndefined();
  });
});

describe('parseMoney', () => {
  it('keeps the text as shown in raw and reads ISO codes and symbols as currencies', () => {
    expect(parseMoney('AED 30.99')).toEqual({ value: 30.99, currency: 'AED', raw: 'AED 30.99' });
    expect(parseMoney(' $9.98 ')).toEqual({ value: 9.98, currency: 'USD', raw: '$9.98' });
    expect(parseMoney('29,99 €')).toEqual({ value: 29.99, currency: 'EUR', raw: '29,99 €' });
    expect(parseMoney('£1,049.00')).toEqual({ value: 1049, currency: 'GBP', raw: '£1,049.00' });
    expect(parseMoney('₹ 2,499')).toEqual({ value: 2499, currency: 'INR', raw: '₹ 2,499' });
  });

  it('reads a bare $ by the store: CAD on amazon.ca, MXN on amazon.com.mx, USD on amazon.com', () => {
    expect(parseMoney('$45.00', { pageUrl: 'https://www.amazon.ca/dp/B0TEST0001' })?.currency).toBe('CAD');
    expect(parseMoney('$1,299.00', { pageUrl: 'https://www.amazon.com.mx/dp/B0TEST0001' })?.currency).toBe('MXN');
    expect(parseMoney('$45.00', { pageUrl: 'https://www.amazon.com/dp/B0TEST0001' })?.currency).toBe('USD');
  });

  it('falls back to the currency hint, then to the store, when the text has no symbol', () => {
    expect(parseMoney('35.99', { currencyHint: '€' })?.currency).toBe('EUR');
    expect(parseMoney('30.99', { pageUrl: 'https://www.amazon.ae/dp/B0TEST0001' })?.currency).toBe('AED');
  });

  it('does not take an upper-case word for a currency code', () => {
    expect(parseMoney('NEW $29.99')?.currency).toBe('USD');
    expect(parseMoney('TOP DEAL 1.299,00 €')?.currency).toBe('EUR');
    expect(parseMoney('29,99 EUR')?.currency).toBe('EUR');
  });

  it('answers null for text without an amount', () => {
    expect(parseMoney('')).toBeNull();
    expect(parseMoney(undefined)).toBeNull();
    expect(parseMoney('See price in cart')).toBeNull();
  });
});

describe('storeCurrency / currencyOf', () => {
  it('knows the stores and symbols Amazon prices in', () => {
    expect(storeCurrency('https://www.amazon.ae/dp/X')).toBe('AED');
    expect(storeCurrency('https://www.amazon.co.uk/dp/X')).toBe('GBP');
    expect(storeCurrency('https://www.amazon.com/dp/X')).toBeUndefined();
    expect(storeCurrency('not a url')).toBeUndefined();
    expect(currencyOf('SAR')).toBe('SAR');
    expect(currencyOf('R$')).toBe('BRL');
    expect(currencyOf('?')).toBeUndefined();
  });
});
