import type { FastifyInstance } from 'fastify';
import { TrawlError } from '@trawl/contracts';

/**
 * Deepest nesting of objects and arrays a JSON body may have. No request of the spec nests deeper than 4 (a batch's
 * `params` object inside the body); 64 leaves room without letting a body make any later step recurse thousands deep.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` nests `{`/`[` deeper than `maxDepth`, found by one linear pass that skips string contents (escapes
 * included). No recursion and no allocation, so a 5 MB body of `[` costs one scan and never the stack. It does not
 * validate JSON: the parser does that after this check.
 */
export function jsonNestingExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Makes `application/json` the only body the gateway parses: every other content type is 415 (Fastify's
 * FST_ERR_CTP_INVALID_MEDIA_TYPE). The body is read as text within `bodyLimit` (413 beyond), refused with
 * JSON_TOO_DEEP when nested deeper than `maxDepth`, then parsed by Fastify's own JSON parser with `__proto__` and
 * `constructor.prototype` members refused (400). A DELETE or GET that declares JSON but sends nothing (firecrawl-js's
 * v1 client cancels so) has no body, as if it declared none. Register it on the root instance before the routes, and create
 * the Nest app with `bodyParser: false` so Nest does not add its own parsers.
 */
export function useJsonBodyParser(fastify: FastifyInstance, options: { bodyLimit: number; maxDepth?: number }): void {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: options.bodyLimit },
    (request, body, done) => {
      const text = body as string;
      if (text === '' && (request.method === 'DELETE' || request.method === 'GET')) {
        done(null, undefined);
        return;
      }
      if (jsonNestingExceeds(text, maxDepth)) {
        done(
          new TrawlError('JSON_TOO_DEEP', `request body nests objects or arrays deeper than ${maxDepth} levels`, {
            field: 'body',
          }),
          undefined,
        );
        return;
      }
      parse(request, text, done);
    },
  );
}
