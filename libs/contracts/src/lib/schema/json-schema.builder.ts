/**
 * Small builders of JSON schemas (JSON Schema 2020-12, as OpenAPI 3.1 takes them) that carry the TypeScript type of
 * what they describe. The response shapes are written once with them: the schema is the value, the contract type is
 * `Infer<typeof SCHEMA>` (ADR 0035), so a field cannot be added to one without the other. A schema is plain JSON
 * (what `JSON.stringify` writes is the document's text); the type rides on a phantom key that exists only for the
 * compiler, and the marks `optional()` and `named()` are symbol keys, which JSON never sees.
 */
export type JsonSchema = Record<string, unknown>;

declare const TYPE: unique symbol;
/** A JSON schema of values of type T. */
export type Schema<T> = JsonSchema & { readonly [TYPE]: T };
/** The type a schema describes. */
export type Infer<S> = S extends { readonly [TYPE]: infer T } ? T : never;

const OPTIONAL = Symbol('optional');
const NAME = Symbol('name');
/** A property that may be absent: `optional(str())` in `object({...})` is `key?: string`. */
export type Optional<T> = Schema<T> & { readonly [OPTIONAL]: true };
/** A schema with its name among the document's components: `ref()` points at it. */
export type Named<T> = Schema<T> & { readonly [NAME]: string };

type Properties = Record<string, Schema<unknown>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The object type of an `object()`'s properties: optional ones with `?`. */
export type ObjectOf<P extends Properties> = Simplify<
  { [K in keyof P as P[K] extends { readonly [OPTIONAL]: true } ? never : K]: Infer<P[K]> } & {
    [K in keyof P as P[K] extends { readonly [OPTIONAL]: true } ? K : never]?: Infer<P[K]>;
  }
>;

function typed<T>(schema: JsonSchema): Schema<T> {
  return schema as Schema<T>;
}
const withDescription = (schema: JsonSchema, description?: string): JsonSchema =>
  description === undefined ? schema : { ...schema, description };

export const str = (description?: string): Schema<string> => typed(withDescription({ type: 'string' }, description));
export const int = (description?: string): Schema<number> => typed(withDescription({ type: 'integer' }, description));
export const num = (description?: string): Schema<number> => typed(withDescription({ type: 'number' }, description));
export const bool = (description?: string): Schema<boolean> => typed(withDescription({ type: 'boolean' }, description));
/** A string of a JSON Schema `format` (`uuid`, `date-time`). */
export const formatted = (format: string, description: string): Schema<string> =>
  typed({ type: 'string', format, description });
/** A string, a number or a boolean. */
export const scalar = (): Schema<string | number | boolean> => typed({ type: ['string', 'number', 'boolean'] });
/** Any JSON value. */
export const anyValue = (description: string): Schema<unknown> => typed({ description });
/** An object the document does not detail. */
export const anyObject = (description: string): Schema<Record<string, unknown>> =>
  typed({ type: 'object', description });
/** An object the document does not detail, of type T in the code (a request DTO's type, say). */
export const anyObjectOf = <T extends object>(description: string): Schema<T> => typed({ type: 'object', description });
export const constant = <const T extends string | number>(value: T): Schema<T> => typed({ const: value });
export const enumOf = <const T extends string>(values: readonly T[]): Schema<T> =>
  typed({ type: 'string', enum: [...values] });
export const arr = <T>(items: Schema<T>): Schema<T[]> => typed({ type: 'array', items });
/** An object of any keys, each value of `values`' type. */
export const mapOf = <T>(values: Schema<T>): Schema<Record<string, T>> =>
  typed({ type: 'object', additionalProperties: values });
export const nullable = <T>(schema: Schema<T>): Schema<T | null> =>
  typed(
    typeof schema.type === 'string'
      ? { ...schema, type: [schema.type, 'null'] }
      : { anyOf: [schema, { type: 'null' }] },
  );
/** The same schema with a description (one the builder could not take). */
export const described = <T>(schema: Schema<T>, description: string): Schema<T> => typed({ ...schema, description });
/** One of several schemas (`oneOf`). */
export const oneOf = <S extends Schema<unknown>[]>(description: string, schemas: S): Schema<Infer<S[number]>> =>
  typed({ description, oneOf: schemas });

export function optional<T>(schema: Schema<T>): Optional<T> {
  return { ...schema, [OPTIONAL]: true } as Optional<T>;
}

function isOptional(schema: Schema<unknown>): boolean {
  return (schema as { [OPTIONAL]?: true })[OPTIONAL] === true;
}

/** Drops the marks: what a property of an object carries is the schema only. */
function plain(schema: Schema<unknown>): JsonSchema {
  return Object.fromEntries(Object.entries(schema));
}

/** An object schema over exactly these properties; those not marked `optional()` are required. */
export function object<P extends Properties>(properties: P): Schema<ObjectOf<P>> {
  const keys = Object.keys(properties).sort();
  return typed({
    type: 'object',
    properties: Object.fromEntries(keys.map((k) => [k, plain(properties[k] as Schema<unknown>)])),
    required: keys.filter((k) => !isOptional(properties[k] as Schema<unknown>)),
  });
}

/** An object schema with more properties, or some replaced: T's other keys stay as they were. */
export function extend<T, P extends Properties>(
  base: Schema<T>,
  properties: P,
): Schema<Simplify<Omit<T, keyof P> & ObjectOf<P>>> {
  const added = Object.keys(properties);
  const baseProperties = base.properties as Record<string, JsonSchema>;
  const required = (base.required as string[]).filter((k) => !added.includes(k));
  return typed({
    ...plain(base),
    properties: {
      ...baseProperties,
      ...Object.fromEntries(added.map((k) => [k, plain(properties[k] as Schema<unknown>)])),
    },
    required: [...required, ...added.filter((k) => !isOptional(properties[k] as Schema<unknown>))].sort(),
  });
}

/** An object that may carry keys beyond its properties (a record an extractor may enrich). */
export const loose = <T>(schema: Schema<T>): Schema<T> => typed({ ...schema, additionalProperties: true });

/** The schema as a named component of the document (`components.schemas.<name>`). */
export function named<T>(name: string, schema: Schema<T>): Named<T> {
  return { ...schema, [NAME]: name } as Named<T>;
}

export function schemaName(schema: Named<unknown>): string {
  return schema[NAME];
}

/** A reference to a named schema: `{ $ref }` in the document, the schema's type for the compiler. */
export const ref = <T>(schema: Named<T>): Schema<T> => typed({ $ref: `#/components/schemas/${schema[NAME]}` });

/**
 * `loose()` whose extra keys have a type: `additionalProperties: true` in the document, `T & E` for the compiler
 * (`looseWith<TwitterCardFields>()(object({...}))`).
 */
export const looseWith =
  <E extends object>() =>
  <T>(schema: Schema<T>): Schema<T & E> =>
    typed({ ...schema, additionalProperties: true });
