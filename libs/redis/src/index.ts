export * from './lib/redis-topology.js';
export * from './lib/create-redis-client.js';
