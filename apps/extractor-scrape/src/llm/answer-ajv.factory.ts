import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';

type AddFormats = typeof ajvFormats.default;
/** ajv-formats' plugin under either module interop (its CommonJS module is the plugin and has it as `default`). */
const addFormats: AddFormats =
  (ajvFormats as unknown as { default?: AddFormats }).default ?? (ajvFormats as unknown as AddFormats);

/**
 * A fresh Ajv as the `json` format's schema is checked and its answers validated (ADR 0029): draft-07,
 * `strict: false` (unknown keywords and unknown formats are ignored, silently: models' schemas carry many), the
 * `format`s of ajv-formats checked (`email`, `date-time`, `uri`, `uuid`, `ipv4`, ...; its default "fast" mode; the
 * answers are validated in the worker, within its budget), every failure. Fresh each time: an Ajv's cache would
 * otherwise keep every caller's schema. One factory for the check before the fetch and the worker's validation, so a
 * schema compiles in one exactly when it compiles in the other.
 */
export function answerAjv(): Ajv {
  return addFormats(new Ajv({ strict: false, allErrors: true, logger: false }));
}
