import { describe, expect, it } from '@jest/globals';
import { canonicalJson } from './canonical-json.serializer.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and leaves undefined members out, keeping array order and nulls', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: undefined, w: null }] })).toBe('{"a":[{"w":null,"y":2}],"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('writes what JSON.stringify writes for a value that is not an object', () => {
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(undefined)).toBe('null');
  });
});
