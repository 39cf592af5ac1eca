import preset from '../../jest.preset.js';

// Whole-system tests: every service as its own process (from dist/, built by `npm test` first), real Redis, NATS
// and Chromium. Run serially: each suite starts its own stack.
export default { ...preset, displayName: 'system-e2e', rootDir: import.meta.dirname, maxWorkers: 1 };
