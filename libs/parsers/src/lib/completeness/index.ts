export {
  classifyRecord,
  completeness,
  emptyFields,
  fieldPresence,
  isFilled,
  PARSER_NAMES,
  PARSER_VERSION,
  recordKind,
  withResultMeta,
  type FieldRate,
  type ParserName,
} from './field-presence.util.js';
