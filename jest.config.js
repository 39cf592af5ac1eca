// Every project's tests in one run (`npm run jest`); each project also has its own `nx test <project>` target.
// Options that are global in a multi-project run (testTimeout, maxWorkers) must sit here, not in a project's config.
export default {
  testTimeout: 60_000,
  projects: ['<rootDir>/apps/*/jest.config.js', '<rootDir>/libs/*/jest.config.js', '<rootDir>/tools/*/jest.config.js'],
};
