// Every project's tests in one run (`npm run jest`) except the whole-system suites, which run the built services
// one suite at a time (`npm run jest -- -c apps/system-e2e/jest.config.js`; `npm test` runs both). Each project also
// has its own `nx test <project>` target. Options that are global in a multi-project run (testTimeout) sit here.
import { readdirSync } from 'node:fs';

const configs = (dir) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'system-e2e')
    .map((d) => `<rootDir>/${dir}/${d.name}/jest.config.js`);

export default {
  testTimeout: 60_000,
  // On two cores jest would run every suite in its own process (in band), and what each suite leaves behind (module
  // registries of ES modules, Nest apps, clients) adds up past the heap limit over 180 suites (an OOM abort in the
  // unit phase). With a limit, the suites run in a worker process that is replaced once it holds more than this
  // after a suite: still one suite at a time.
  workerIdleMemoryLimit: '1536MB',
  projects: [...configs('apps'), ...configs('libs'), ...configs('tools')],
};
