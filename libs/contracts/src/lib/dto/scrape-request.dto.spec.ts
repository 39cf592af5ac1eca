import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '../error-codes.constants.js';
import { parseDto } from '../dto.parser.js';
import { ExtractRequestDto } from './extract-request.dto.js';
import { ScrapeRequestDto } from './scrape-request.dto.js';

const url = 'https://a.test/';

function refusal(cls: new () => object, body: Record<string, unknown>): TrawlError {
  try {
    parseDto(cls, body);
  } catch (e) {
    if (e instanceof TrawlError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('the LLM formats of a scrape request (ADR 0029)', () => {
  it('accepts summary (string or object) and one json object with a schema, a prompt or both', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const formats = ['markdown', 'summary', { type: 'json', schema, prompt: 'the a' }];
    expect(parseDto(ScrapeRequestDto, { url, formats }).formats).toEqual(formats);
    expect(
      parseDto(ScrapeRequestDto, { url, formats: [{ type: 'summary' }, { type: 'json', prompt: 'p' }] }),
    ).toBeTruthy();
    expect(
      parseDto(ExtractRequestDto, { url, type: 'scrape', scrapeOptions: { formats: [{ type: 'json', schema }] } }),
    ).toBeTruthy();
  });

  it.each([
    [['json'], "formats[0] json must be { type: 'json', schema, prompt }"],
    [[{ type: 'json' }], 'formats[0] (json) needs a schema, a prompt or both'],
    [[{ type: 'json', schema: [] }], 'formats[0] (json) schema must be a JSON Schema object'],
    [[{ type: 'json', schema: { type: 'string' } }], 'formats[0] (json) schema must describe an object (type object)'],
    [[{ type: 'json', schema: { type: 'object', description: 'x'.repeat(32_768) } }], 'at most 32768 characters'],
    [[{ type: 'json', prompt: '' }], 'prompt must be a string of 1-10000 characters'],
    [[{ type: 'json', prompt: 'p', systemPrompt: 's' }], '(json) takes only schema and prompt'],
    [[{ type: 'summary', length: 3 }], '(summary) takes no options'],
    [['summary', { type: 'summary' }], 'formats[1] repeats summary'],
    [
      [
        { type: 'json', prompt: 'a' },
        { type: 'json', prompt: 'b' },
      ],
      'formats[1] repeats json',
    ],
  ])('refuses %j with VALIDATION_FAILED on formats', (formats, words) => {
    const e = refusal(ScrapeRequestDto, { url, formats });
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.field).toBe('formats');
    expect(e.message).toContain(words);
  });
});
