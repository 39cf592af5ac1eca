import type { ReplyType, WirePayload } from './wire-payload.schema.js';
import type { RpcRow, SUBJECT_TABLE } from './subjects.constants.js';

export type { ExtractUrlRequest } from './dto/extract-url-request.dto.js';

type Table = typeof SUBJECT_TABLE;
type RpcName = { [K in keyof Table]: Table[K] extends RpcRow ? K : never }[keyof Table];

/**
 * Request and reply type of every request/reply subject, read off SUBJECT_TABLE. `MessagingClient.send(subject,
 * payload)` takes its types from here, so a caller cannot send the wrong payload or misread the reply.
 */
export type RpcContract = {
  [K in RpcName as Table[K]['subject']]: Table[K] extends {
    request: WirePayload<infer Req>;
    reply: ReplyType<infer Rep>;
  }
    ? { request: Req; reply: Rep }
    : never;
};

export type RpcSubject = keyof RpcContract;
export type RpcRequest<S extends RpcSubject> = RpcContract[S]['request'];
export type RpcReply<S extends RpcSubject> = RpcContract[S]['reply'];
