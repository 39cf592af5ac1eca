import * as s from '../schema/json-schema.builder.js';
import { RESULT_PARSERS } from './result-parsers.constants.js';

/**
 * Optional block of a result, present only when the request asked for it (`meta: true`): which parser read the page,
 * its version, and the record's fields it left empty (a list's `[].field`: not every item has it). Lets a caller
 * tell "the page had no price" from "the parser missed it" and report drift with the version that showed it.
 */
export const RESULT_META = s.named(
  'ResultMeta',
  s.object({
    parser: s.enumOf(RESULT_PARSERS),
    parserVersion: s.str(),
    emptyFields: s.arr(s.str()),
  }),
);
export type ResultMeta = s.Infer<typeof RESULT_META>;
