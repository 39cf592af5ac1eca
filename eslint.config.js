import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** BullMQ and Bull Board: task-service's alone (libs/tasks, apps/task-service). */
const QUEUE_PACKAGES = ['bullmq', '@bull-board/*', '@nestjs/bullmq'];
/** Runtime infrastructure: what a wire contract, a published client or a pure parser never loads. */
const RUNTIME_INFRA = [...QUEUE_PACKAGES, 'ioredis', 'playwright*', '@nats-io/*'];
/** Network clients (npm): a parser reads text it is given and fetches nothing. */
const NETWORK_CLIENTS = ['undici', 'axios', 'ws', 'header-generator'];

/**
 * Which infrastructure lib may import which other one (besides contracts): a sideways import not in this table is
 * refused. Each infra lib carries `infra:<name>`.
 */
const INFRA_IMPORTS = {
  config: [],
  telemetry: [],
  redis: [],
  'browser-identity': [],
  // Trace context in NATS headers, request metrics.
  messaging: ['telemetry'],
  // The one process lifecycle: the NATS server options and the ops server.
  'service-runtime': ['messaging', 'telemetry'],
  // The browser-like request headers.
  'safe-fetch': ['browser-identity'],
  // The identity of the pool's browsers, and the guarding forward proxy in front of Chromium.
  'browser-pool': ['browser-identity', 'safe-fetch'],
};

/**
 * What each kind of app may import: the libs of its own scope (and `scope:shared`), and no package of another kind's
 * runtime. Libs carry the `scope:` of every app kind that may use them; an app carries one `app:` tag.
 */
const APP_KINDS = {
  gateway: { banned: [...QUEUE_PACKAGES, 'playwright*'] },
  'task-service': { banned: ['playwright*'] },
  'webhook-dispatcher': { banned: [...QUEUE_PACKAGES, 'playwright*'] },
  // extractor-search, -maps, -retail: pages over HTTP or rendered by the browser fleet, over NATS.
  extractor: { banned: [...QUEUE_PACKAGES, 'playwright*', 'ioredis'] },
  // extractor-scrape: the one Chromium pool.
  'browser-fleet': { banned: [...QUEUE_PACKAGES, 'ioredis'] },
};

/**
 * Module boundaries by Nx tag (every project.json carries one `layer:` tag). Each layer depends only on the layers
 * below it:
 *   contracts  the wire contract; depends on nothing of ours, and loads no runtime infrastructure;
 *   domain     pure logic (parsers): the contract's types only, no framework and no network client;
 *   infra      messaging, safe-fetch, browser pool and identity, telemetry, config, redis, service runtime:
 *              infrastructure and contracts only, sideways only as INFRA_IMPORTS allows;
 *   feature    tasks, crawl, webhooks, keys, upstream: infrastructure, domain and contracts, never another feature;
 *   app        composition roots: the libs of their kind (APP_KINDS), never another app.
 * Off to the side: `layer:sdk` (libs/client, published on its own: contracts only, no Nest and no infrastructure),
 * `layer:tool` (tools/) and `layer:e2e` (apps/system-e2e), and the test harness `layer:testing` (libs/testing:
 * infrastructure that tests start), which only tests may import. Tests of the SDK may also use a feature, to check
 * that it reads what the services send. `bannedExternalImports` sees `import()` and `require()` as well as `import`.
 */
function boundaries(inTests) {
  const testing = inTests ? ['layer:testing'] : [];
  return {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      {
        sourceTag: 'layer:contracts',
        onlyDependOnLibsWithTags: [...testing],
        bannedExternalImports: [...RUNTIME_INFRA, '@nestjs/common', '@nestjs/core', '@nestjs/microservices'],
      },
      {
        sourceTag: 'layer:domain',
        onlyDependOnLibsWithTags: ['layer:contracts', ...testing],
        bannedExternalImports: ['@nestjs/*', ...RUNTIME_INFRA, ...NETWORK_CLIENTS],
      },
      { sourceTag: 'layer:infra', onlyDependOnLibsWithTags: ['layer:contracts', 'layer:infra', ...testing] },
      ...Object.entries(INFRA_IMPORTS).map(([lib, allowed]) => ({
        sourceTag: `infra:${lib}`,
        onlyDependOnLibsWithTags: ['layer:contracts', ...allowed.map((a) => `infra:${a}`), ...testing],
      })),
      {
        sourceTag: 'layer:feature',
        onlyDependOnLibsWithTags: ['layer:contracts', 'layer:domain', 'layer:infra', ...testing],
      },
      {
        sourceTag: 'layer:app',
        onlyDependOnLibsWithTags: ['layer:contracts', 'layer:domain', 'layer:infra', 'layer:feature', ...testing],
      },
      ...Object.entries(APP_KINDS).map(([kind, { banned }]) => ({
        sourceTag: `app:${kind}`,
        onlyDependOnLibsWithTags: ['scope:shared', `scope:${kind}`, ...testing],
        // Tests may drive Redis or a browser directly to look at what the service did; never the queues.
        bannedExternalImports: inTests ? banned.filter((b) => QUEUE_PACKAGES.includes(b)) : banned,
      })),
      // The harness itself: what it starts and checks against is infrastructure.
      { sourceTag: 'layer:testing', onlyDependOnLibsWithTags: ['layer:contracts', 'layer:infra', 'layer:testing'] },
      {
        sourceTag: 'layer:sdk',
        onlyDependOnLibsWithTags: ['layer:contracts', ...(inTests ? ['layer:feature', 'layer:testing'] : [])],
        bannedExternalImports: ['@nestjs/*', ...RUNTIME_INFRA],
      },
      {
        sourceTag: 'layer:tool',
        onlyDependOnLibsWithTags: ['layer:contracts', 'layer:domain', 'layer:infra', 'layer:feature', ...testing],
      },
      {
        sourceTag: 'layer:e2e',
        onlyDependOnLibsWithTags: ['layer:contracts', 'layer:infra', 'layer:feature', 'layer:sdk', 'layer:testing'],
      },
    ],
  };
}

/** BullMQ (and Bull Board over it) belongs to task-service: only it and libs/tasks, which only it uses, may import them. */
const QUEUE_IMPORTS = {
  patterns: [
    {
      group: [...QUEUE_PACKAGES.flatMap((p) => (p.endsWith('*') ? [p] : [p, `${p}/*`])), '@trawl/tasks'],
      message: 'Only task-service (and libs/tasks) touch BullMQ; go through its NATS subjects instead.',
    },
  ],
};

const PROCESS_ENV = {
  selector: "MemberExpression[object.name='process'][property.name='env']",
  message: 'Read configuration through @trawl/config, not process.env.',
};

/**
 * Loading a module where lint cannot see which: a require made at run time (`createRequire`, `getBuiltinModule`), or
 * `import()` of a computed name. Every module is loaded by a literal name, so the boundaries above hold.
 */
const HIDDEN_LOADS = [
  {
    selector: "ImportSpecifier[imported.name='createRequire']",
    message: 'No createRequire: import by a literal name, so the module boundaries see what is loaded.',
  },
  {
    selector: 'MemberExpression[property.name=/^(createRequire|getBuiltinModule)$/]',
    message: 'No run-time require: import by a literal name, so the module boundaries see what is loaded.',
  },
  {
    selector: "ImportExpression[source.type!='Literal']",
    message: 'import() takes a literal name, so the module boundaries see what is loaded.',
  },
];

/** Node's network and I/O modules: a parser gets text and returns values. */
const IO_MODULES = ['http', 'https', 'http2', 'net', 'tls', 'dgram', 'dns', 'child_process', 'fs', 'fs/promises'];

export default tseslint.config(
  { ignores: ['**/dist', '**/node_modules', '**/.nx', '**/coverage', 'deploy/**', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', PROCESS_ENV, ...HIDDEN_LOADS],
      '@nx/enforce-module-boundaries': ['error', boundaries(false)],
      'no-restricted-imports': ['error', QUEUE_IMPORTS],
    },
  },
  {
    // The queues' owners; and tests that look into the queues (whole-system) or act as task-service (its Redis ACL).
    files: [
      'libs/tasks/**/*.ts',
      'apps/task-service/**/*.ts',
      'apps/system-e2e/test/**/*.ts',
      'tools/deploy/test/**/*.ts',
    ],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The config lib is the one place that reads the environment.
    files: ['libs/config/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...HIDDEN_LOADS] },
  },
  {
    // The one resolution of a package's files at run time (header-generator's data, to read Chromium's version).
    files: ['libs/browser-identity/src/lib/chrome-version.resolver.ts'],
    rules: { 'no-restricted-syntax': ['error', PROCESS_ENV] },
  },
  {
    // Scripts, tools and tests (and their harness) may read the environment and resolve package files.
    files: [
      'libs/testing/**/*.ts',
      'libs/*/src/testing/**/*.ts',
      '**/test/**/*.ts',
      'tools/**/*.ts',
      'scripts/**/*.ts',
      '**/*.spec.ts',
      '**/*.e2e-spec.ts',
      'bench/**/*.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Parsers do no I/O: no network client, no file, no process (their fixtures' reader, a test helper, aside).
    files: ['libs/parsers/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/parsers/src/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...QUEUE_IMPORTS,
          paths: IO_MODULES.flatMap((m) => [m, `node:${m}`]).map((name) => ({
            name,
            message: 'Parsers are pure: text in, values out. The caller fetches and reads.',
          })),
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['fetch', 'WebSocket', 'XMLHttpRequest', 'EventSource'].map((name) => ({
          name,
          message: 'Parsers are pure: text in, values out. The caller fetches.',
        })),
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': ['error', boundaries(true)] },
  },
);
