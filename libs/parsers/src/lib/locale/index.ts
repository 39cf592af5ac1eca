export {
  normaliseLocale,
  numberSymbols,
  parseLocaleCount,
  parseLocaleNumber,
  parseLocaleRating,
  type NumberSymbols,
} from './locale-number.parser.js';
export { monthNumber, parseLocaleDate } from './locale-date.parser.js';
