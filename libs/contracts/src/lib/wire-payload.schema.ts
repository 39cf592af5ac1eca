import { parseDto } from './dto.parser.js';

/**
 * How a payload that crosses the wire is checked where it arrives: `parse` turns untrusted input into the typed
 * payload (defaults applied) or throws VALIDATION_FAILED naming the bad field. `name` says what it checks against (a
 * DTO class, a parser) in messages and docs.
 */
export interface WirePayload<T> {
  readonly name: string;
  parse(input: unknown): T;
}

/** A payload checked by a class-validator DTO (`parseDto`: defaults, unknown properties refused, validation). */
export function dtoPayload<T extends object>(cls: new () => T): WirePayload<T> {
  return { name: cls.name, parse: (input) => parseDto(cls, input) };
}

/** A payload checked by a parser function (a union a single DTO class cannot say, as `task.submit.v1`'s kinds). */
export function parsedPayload<T>(name: string, parse: (input: unknown) => T): WirePayload<T> {
  return { name, parse };
}

/** The reply type of a request/reply subject: a type only, carried by the table for `MessagingClient.send`. */
export interface ReplyType<T> {
  readonly reply?: T;
}

/** Names the reply type of a row: `replyOf<WebSearchResult>()`. */
export function replyOf<T>(): ReplyType<T> {
  return {};
}
