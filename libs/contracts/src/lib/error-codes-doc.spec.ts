import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ERROR_CODES, ERROR_HTTP_STATUS, ERROR_RETRYABLE } from './error-codes.constants.js';

const ERRORS_MD = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../docs/errors.md');

/** The rows of docs/errors.md's table: `| \`CODE\` | status | yes/no | when |`. */
function documentedCodes(): Map<string, { status: number; retryable: string }> {
  const rows = new Map<string, { status: number; retryable: string }>();
  for (const line of readFileSync(ERRORS_MD, 'utf8').split('\n')) {
    const m = /^\| `([A-Z_]+)` \| (\d{3}) \| (yes|no) \|/.exec(line);
    if (m) rows.set(m[1] as string, { status: Number(m[2]), retryable: m[3] as string });
  }
  return rows;
}

/** Issue 20, item 6: docs/errors.md documents every code the contracts define, as the code answers it. */
describe('docs/errors.md', () => {
  const rows = documentedCodes();

  it('has one row per error code of the contracts, and none other', () => {
    expect([...rows.keys()].sort()).toEqual([...ERROR_CODES].sort());
  });

  it.each([...ERROR_CODES])('gives %s the HTTP status and retryability the code answers', (code) => {
    expect(rows.get(code)).toEqual({
      status: ERROR_HTTP_STATUS[code],
      retryable: ERROR_RETRYABLE[code] ? 'yes' : 'no',
    });
  });
});
