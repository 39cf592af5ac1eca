import { startLoopbackHttp, type LoopbackServer } from './loopback-http.server.js';

/** A chat-completions request as the stub received it (the fields a test looks at). */
export interface StubChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean } };
  [field: string]: unknown;
}

/** What the stub answers: the assistant's text (or refusal) and finish reason, or an HTTP error in OpenAI's shape. */
export type StubReply =
  | {
      content: string | null;
      refusal?: string;
      finishReason?: 'stop' | 'length' | 'content_filter';
      /**
       * The answer's `usage`: by default prompt_tokens = the request body's characters / 4 (rounded up),
       * completion_tokens = 10, total_tokens their sum; null leaves `usage` out, as some compatible servers do.
       */
      usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number } | null;
    }
  | { status: number; error: string };

/** The `usage` the stub answers by default for a request body of `chars` characters (StubReply.usage). */
export function stubUsageOf(chars: number): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const prompt = Math.ceil(chars / 4);
  return { prompt_tokens: prompt, completion_tokens: 10, total_tokens: prompt + 10 };
}

export interface OpenAiStub extends LoopbackServer {
  /** The base URL as OpenAI's clients take it (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  /** The chat-completions requests received, parsed, in order. */
  chats: StubChatRequest[];
}

/**
 * A local stand-in for OpenAI's chat-completions API (never a real model): `POST /v1/chat/completions` answered
 * with a `chat.completion` object whose first choice carries what `reply` decides for the request, in OpenAI's wire
 * shape; other paths are 404 and a wrong bearer token 401, as OpenAI's `{ error: { message, type, code } }`.
 */
export async function startOpenAiStub(
  reply: (req: StubChatRequest) => StubReply | Promise<StubReply>,
  options: { apiKey?: string } = {},
): Promise<OpenAiStub> {
  const chats: StubChatRequest[] = [];
  const error = (status: number, message: string, type = 'invalid_request_error') =>
    JSON.stringify({ error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : null } });
  const server = await startLoopbackHttp(async (req, res, body) => {
    const send = (status: number, json: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(json);
    };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return send(404, error(404, `Invalid URL (${req.method} ${req.url})`));
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return send(401, error(401, 'Incorrect API key provided.'));
    let chat: StubChatRequest;
    try {
      chat = JSON.parse(body) as StubChatRequest;
    } catch {
      return send(400, error(400, 'We could not parse the JSON body of your request.'));
    }
    chats.push(chat);
    const answer = await reply(chat);
    if ('status' in answer) return send(answer.status, error(answer.status, answer.error));
    send(
      200,
      JSON.stringify({
        id: `chatcmpl-stub${chats.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: chat.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: answer.content, refusal: answer.refusal ?? null },
            logprobs: null,
            finish_reason: answer.finishReason ?? 'stop',
          },
        ],
        ...(answer.usage === null ? {} : { usage: answer.usage ?? stubUsageOf(body.length) }),
      }),
    );
  });
  return { ...server, baseUrl: `${server.url}/v1`, chats };
}
