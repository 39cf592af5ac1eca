import preset from '../../jest.preset.js';

export default {
  ...preset,
  displayName: 'gateway',
  rootDir: import.meta.dirname,
  // Fastify's inject (light-my-request) requires the ESM-only `cookie`; see test/support/cookie-shim.cjs.
  moduleNameMapper: { '^cookie$': '<rootDir>/test/support/cookie-shim.cjs', ...preset.moduleNameMapper },
};
