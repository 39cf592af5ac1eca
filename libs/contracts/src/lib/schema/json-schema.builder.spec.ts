import { describe, expect, it } from '@jest/globals';
import { RESPONSE_SCHEMAS } from '../api-responses.schema.js';
import { MONEY, type Money } from '../results/retail-result.schema.js';
import {
  arr,
  constant,
  enumOf,
  extend,
  int,
  named,
  nullable,
  object,
  optional,
  ref,
  str,
  type Infer,
} from './json-schema.builder.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <A, B>(proof: Same<A, B>): Same<A, B> => proof;

const PLACE = named(
  'Place',
  object({
    name: str('Its name.'),
    rating: nullable(int()),
    kind: enumOf(['shop', 'cafe']),
    tags: optional(arr(str())),
    price: optional(ref(MONEY)),
    version: constant(2),
  }),
);

describe('json-schema builder (ADR 0035: a response shape written once)', () => {
  it('types an object by its properties: required unless optional(), null from nullable(), enums as unions', () => {
    type Expected = {
      name: string;
      rating: number | null;
      kind: 'shop' | 'cafe';
      tags?: string[];
      price?: Money;
      version: 2;
    };
    expect(same<Infer<typeof PLACE>, Expected>(true)).toBe(true);
    // The schema says what the type says: the required list is the keys not marked optional, sorted.
    expect(JSON.parse(JSON.stringify(PLACE))).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Its name.' },
        rating: { type: ['integer', 'null'] },
        kind: { type: 'string', enum: ['shop', 'cafe'] },
        tags: { type: 'array', items: { type: 'string' } },
        price: { $ref: '#/components/schemas/Money' },
        version: { const: 2 },
      },
      required: ['kind', 'name', 'rating', 'version'],
    });
  });

  it('a field changed in the schema changes the type: a value of the old shape no longer compiles', () => {
    const WITH_CITY = extend(PLACE, { city: str() });
    const place: Infer<typeof PLACE> = { name: 'n', rating: null, kind: 'cafe', version: 2 };
    // @ts-expect-error `city` is required by the extended schema, so the old value is refused.
    const moved: Infer<typeof WITH_CITY> = place;
    expect(moved).toBe(place);
    expect((WITH_CITY.required as string[]).includes('city')).toBe(true);
    // @ts-expect-error a type and its schema are one: there is no type to edit without the schema.
    const wrong: Infer<typeof PLACE> = { name: 'n', rating: '4', kind: 'cafe', version: 2 };
    expect(wrong.rating).toBe('4');
  });

  it('extend() replaces and adds properties, keeping the other keywords and recomputing required', () => {
    const BASE = object({ a: str(), b: optional(int()) });
    const EXTENDED = extend(BASE, { b: int('now set'), c: optional(str()) });
    expect(same<Infer<typeof EXTENDED>, { a: string; b: number; c?: string }>(true)).toBe(true);
    expect(EXTENDED.required).toEqual(['a', 'b']);
    expect((EXTENDED.properties as Record<string, unknown>).b).toEqual({ type: 'integer', description: 'now set' });
  });

  it('writes plain JSON for the document: no mark of optional() or named() is left in a response schema', () => {
    for (const [name, schema] of Object.entries(RESPONSE_SCHEMAS)) {
      expect([name, JSON.parse(JSON.stringify(schema))]).toEqual([name, schema]);
      expect(Object.getOwnPropertySymbols(schema)).toEqual([]);
    }
    expect(Object.keys(RESPONSE_SCHEMAS)).toContain('Money');
  });
});
