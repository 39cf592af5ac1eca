import { describe, expect, it } from '@jest/globals';
import type { ChatRequest } from './chat-request.builder.js';
import { tokenSpendOf } from './token-spend.parser.js';

const REQUEST: ChatRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 'x'.repeat(40) },
    { role: 'user', content: 'y'.repeat(81) },
  ],
};
const answer = (usage: unknown, content = 'z'.repeat(20)) =>
  JSON.stringify({ choices: [{ message: { content } }], ...(usage === undefined ? {} : { usage }) });

describe('tokenSpendOf: what one chat completion spent', () => {
  it("reads the endpoint's usage, total_tokens as given", () => {
    expect(tokenSpendOf(answer({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 155 }), REQUEST)).toEqual({
      promptTokens: 120,
      completionTokens: 30,
      totalTokens: 155,
      estimated: false,
    });
  });

  it('adds prompt and completion when total_tokens is missing or 0', () => {
    for (const usage of [
      { prompt_tokens: 120, completion_tokens: 30 },
      { prompt_tokens: 120, completion_tokens: 30, total_tokens: 0 },
    ])
      expect(tokenSpendOf(answer(usage), REQUEST)).toMatchObject({ totalTokens: 150, estimated: false });
  });

  it('estimates at 4 characters a token when there is no usable usage: the messages sent and the answer', () => {
    // 121 characters sent: 31 tokens; 20 answered: 5 tokens.
    const estimate = { promptTokens: 31, completionTokens: 5, totalTokens: 36, estimated: true };
    expect(tokenSpendOf(answer(undefined), REQUEST)).toEqual(estimate);
    expect(tokenSpendOf(answer({ prompt_tokens: 'many' }), REQUEST)).toEqual(estimate);
    expect(tokenSpendOf(answer({ prompt_tokens: -1, completion_tokens: 2 }), REQUEST)).toEqual(estimate);
    // Not JSON at all: the body's own length stands for the answer.
    expect(tokenSpendOf('not json, 21 chars...', REQUEST)).toEqual({
      ...estimate,
      completionTokens: 6,
      totalTokens: 37,
    });
  });
});
