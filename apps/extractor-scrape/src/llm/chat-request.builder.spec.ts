import { describe, expect, it } from '@jest/globals';
import { buildJsonRequest, isStrictCompatible, pageMessage } from './chat-request.builder.js';

describe('chat-completions request bodies', () => {
  it('sends strict only for schemas OpenAI accepts as strict: closed objects, every property required', () => {
    const closed = (properties: Record<string, unknown>) => ({
      type: 'object',
      properties,
      required: Object.keys(properties),
      additionalProperties: false,
    });
    expect(isStrictCompatible(closed({ a: { type: 'string' } }))).toBe(true);
    expect(
      isStrictCompatible(closed({ items: { type: 'array', items: closed({ n: { type: ['number', 'null'] } }) } })),
    ).toBe(true);
    expect(isStrictCompatible({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toBe(false);
    expect(isStrictCompatible({ ...closed({ a: { type: 'string' } }), required: [] })).toBe(false);
    expect(isStrictCompatible(closed({ inner: { type: 'object', properties: {} } }))).toBe(false);
    expect(isStrictCompatible(closed({ u: { anyOf: [{ type: 'string' }, { type: 'object' }] } }))).toBe(false);
    expect(isStrictCompatible({ ...closed({}), $defs: { x: { type: 'object' } } })).toBe(false);
  });

  it('puts the page between <page> tags after its URL and title, cut at the bound without splitting a pair', () => {
    const page = { url: 'https://a.test/', title: 'A', text: 'ab😀cd' };
    expect(pageMessage(page, 100)).toBe('URL: https://a.test/\nTitle: A\n\n<page>\nab😀cd\n</page>');
    // The bound falls inside the emoji (2 UTF-16 units at 2-3): the cut moves before it.
    expect(pageMessage(page, 3)).toContain('<page>\nab\n\n[The page goes on; its text was cut at 2 characters.]');
  });

  it('builds the json request with the caller’s prompt before the page', () => {
    const req = buildJsonRequest('m', { prompt: 'the price' }, { url: 'u', title: 't', text: 'x' }, 10);
    expect(req.response_format).toEqual({ type: 'json_object' });
    expect(req.messages[1].content.startsWith('What to extract: the price\n\nURL: u')).toBe(true);
    expect(req.messages[0].content).toContain('JSON');
  });
});
