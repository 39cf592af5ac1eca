// Every project's tests in one run (`npm run jest`); each project also has its own `nx test <project>` target.
export default {
  projects: ['<rootDir>/apps/*/jest.config.js', '<rootDir>/libs/*/jest.config.js', '<rootDir>/tools/*/jest.config.js'],
};
