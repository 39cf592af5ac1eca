import { describe, expect, it } from '@jest/globals';
import { jsonNestingExceeds } from './json-body.parser.js';

describe('jsonNestingExceeds', () => {
  it('counts objects and arrays together', () => {
    expect(jsonNestingExceeds('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(jsonNestingExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingExceeds('{"a":"[[[[\\"[[[[{{{{"}', 1)).toBe(false);
    expect(jsonNestingExceeds('["\\\\",[[1]]]', 2)).toBe(true);
  });

  it('scans a body of millions of open brackets without recursion', () => {
    expect(jsonNestingExceeds('['.repeat(2_000_000), 64)).toBe(true);
    expect(jsonNestingExceeds('[]'.repeat(1_000_000), 1)).toBe(false);
  });
});
