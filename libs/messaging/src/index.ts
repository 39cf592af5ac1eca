export * from './lib/nats-packet.js';
export * from './lib/messaging-client.js';
export * from './lib/wire-error.filter.js';
export * from './lib/nats-server.options.js';
export * from './lib/nats-connection.js';
export * from './lib/messaging.module.js';
export * from './lib/nats-trace.interceptor.js';
export * from './lib/listen-on-nats.js';
