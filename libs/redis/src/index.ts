export * from './lib/redis-topology.parser.js';
export * from './lib/redis-client.factory.js';
export * from './lib/steady-redis.client.js';
