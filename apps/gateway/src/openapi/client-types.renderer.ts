import type { OpenAPIObject } from '@nestjs/swagger';
import type { JsonSchema } from '@trawl/contracts';

/**
 * TypeScript types for the client package (libs/client), generated from the OpenAPI document's named schemas so the
 * client is typed by exactly what openapi.json says. Only the JSON Schema vocabulary the document uses is handled.
 */
export function typeName(schemaName: string): string {
  return schemaName.replace(/Dto$/, '');
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function tsOf(schema: JsonSchema, indent: string): string {
  if (typeof schema.$ref === 'string') return typeName(schema.$ref.split('/').pop() ?? '');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map((s) => tsOf(s, indent)).join(' | ');
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as JsonSchema[]).map((s) => tsOf(s, indent)).join(' | ');
  // Swagger wraps a described `$ref` property in a one-element `allOf`; several are the intersection.
  if (Array.isArray(schema.allOf)) return (schema.allOf as JsonSchema[]).map((s) => tsOf(s, indent)).join(' & ');
  if (Array.isArray(schema.type)) {
    return (schema.type as string[]).map((t) => tsOf({ ...schema, type: t }, indent)).join(' | ');
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = tsOf((schema.items ?? {}) as JsonSchema, indent);
      return /^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectOf(schema, indent);
    default:
      return 'unknown';
  }
}

function objectOf(schema: JsonSchema, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const extra = schema.additionalProperties;
  const names = Object.keys(properties);
  if (names.length === 0) {
    return typeof extra === 'object' && extra !== null
      ? `Record<string, ${tsOf(extra as JsonSchema, indent)}>`
      : 'Record<string, unknown>';
  }
  const inner = `${indent}  `;
  const lines = names.map((name) => {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    return `${inner}${key}${required.has(name) ? '' : '?'}: ${tsOf(properties[name] as JsonSchema, inner)};`;
  });
  // additionalProperties: true needs nothing: TypeScript object types are open (an index signature would refuse
  // the contracts' interfaces).
  return `{\n${lines.join('\n')}\n${indent}}`;
}

export function renderClientTypes(doc: OpenAPIObject): string {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, JsonSchema>;
  const body = Object.keys(schemas)
    .sort()
    .map((name) => `export type ${typeName(name)} = ${tsOf(schemas[name] as JsonSchema, '')};\n`)
    .join('\n');
  return `// Generated from openapi.json by \`npm run openapi\` (apps/gateway/src/openapi/client-types.renderer.ts). Do not edit.\n\n${body}`;
}
