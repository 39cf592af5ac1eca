import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { TrawlError } from '@trawl/contracts';
import { toErrorEnvelope } from './error-envelope.mapper.js';

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser failed before a request existed (headers over Node's 16 KiB
 * `maxHeaderSize`, a malformed request line). Answers 431 HEADERS_TOO_LARGE or 400 VALIDATION_FAILED in the envelope,
 * with a fresh request id, and closes the connection. A connection reset needs no answer.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const trawl =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new TrawlError('HEADERS_TOO_LARGE', 'request headers (with the request line) are larger than 16 KiB')
      : new TrawlError('VALIDATION_FAILED', 'malformed HTTP request');
  const { status, body } = toErrorEnvelope(trawl, randomUUID());
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      `X-Request-Id: ${body.requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  );
}
