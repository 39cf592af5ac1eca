import type { ResultParser } from './result-parsers.constants.js';

/**
 * Optional block of a result, present only when the request asked for it (`meta: true`): which parser read the page,
 * its version, and the record's fields it left empty (a list's `[].field`: not every item has it). Lets a caller
 * tell "the page had no price" from "the parser missed it" and report drift with the version that showed it.
 */
export interface ResultMeta {
  parser: ResultParser;
  parserVersion: string;
  emptyFields: string[];
}
