import { isMainThread, parentPort } from 'node:worker_threads';
import { answerAjv } from './answer-ajv.factory.js';

/** One validation asked of the worker. */
export interface ValidationMessage {
  id: number;
  schema: Record<string, unknown>;
  value: unknown;
}

/** What the worker answers for one validation (`ready` once, when it has loaded). */
export interface Verdict {
  id: number;
  valid: boolean;
  errors?: { instancePath: string; message?: string }[];
  failure?: string;
}

/**
 * Validates one model answer against the caller's schema (ADR 0029) with `answerAjv` (formats checked), the first ten
 * failures. Runs in the answer-validation worker thread, never on the service's event loop: a schema's `pattern` is a
 * regular expression the caller wrote, run on the model's answer.
 */
export function validateAnswer({ id, schema, value }: ValidationMessage): Verdict {
  try {
    const validate = answerAjv().compile(schema);
    const valid = validate(value);
    const errors = (validate.errors ?? [])
      .slice(0, 10)
      .map((e) => ({ instancePath: e.instancePath, message: e.message }));
    return { id, valid, errors };
  } catch (e) {
    return { id, valid: false, failure: String(e) };
  }
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', (m: ValidationMessage) => port.postMessage(validateAnswer(m)));
  port.postMessage({ ready: true });
}
