import { describe, expect, it } from '@jest/globals';
import { RawJson } from './raw-json.serializer.js';

describe('RawJson.onlyArrayMember', () => {
  it('cuts the array out of {"key":[…]} as it is', () => {
    const text = JSON.stringify({ jobs: [{ id: 'a', data: { url: 'https://a.test/?q="]}"' } }, { id: 'b' }] });
    expect(RawJson.onlyArrayMember(text, 'jobs').json).toBe(text.slice('{"jobs":'.length, -1));
    expect(JSON.parse(RawJson.onlyArrayMember(text, 'jobs').json)).toEqual(JSON.parse(text).jobs);
  });

  it('parses any other layout and answers the member as JSON', () => {
    expect(RawJson.onlyArrayMember('{ "jobs": [1, 2] }', 'jobs').json).toBe('[1,2]');
    expect(RawJson.onlyArrayMember('{"jobs":{"a":1}}', 'jobs').json).toBe('{"a":1}');
    expect(RawJson.onlyArrayMember('{"other":[1]}', 'jobs').json).toBe('null');
  });
});
