export {
  normaliseLocale,
  numberSymbols,
  parseLocaleCount,
  parseLocaleNumber,
  parseLocaleRating,
  type NumberSymbols,
} from './locale-number.js';
export { monthNumber, parseLocaleDate } from './locale-date.js';
