export * from './lib/free-port.js';
export * from './lib/processes.js';
export * from './lib/servers.js';
export * from './lib/loopback-http.js';
export * from './lib/fake-responder.js';
export * from './lib/simulator-process.js';
export * from './lib/forward-proxy.js';
export * from './lib/metric-sample.js';
