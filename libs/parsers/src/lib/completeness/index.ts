export {
  completeness,
  emptyFields,
  fieldPresence,
  isFilled,
  PARSER_NAMES,
  PARSER_VERSION,
  type FieldRate,
  type ParserName,
} from './field-presence.js';
