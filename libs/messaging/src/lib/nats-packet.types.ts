/**
 * The JSON frames Nest's NATS transport speaks, which our extractor and task-service servers use: a request
 * `{ pattern, data, id }` and a reply `{ id, response?, err?, isDisposed? }`. The MessagingClient writes the same
 * frames so it can talk to any Nest NATS server while using nats.js request/reply directly (for "no responders").
 */
export interface NatsRequestPacket<T> {
  pattern: string;
  data: T;
  id: string;
}

export interface NatsReplyPacket<T> {
  id?: string;
  response?: T;
  err?: unknown;
  status?: string;
  isDisposed?: boolean;
}
