import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries by Nx layer tag (every project.json carries one). Each layer depends only on the layers below it:
 *   contracts  the wire contract; depends on nothing of ours;
 *   domain     pure logic (parsers): the contract's types only, and no framework;
 *   infra      messaging, safe-fetch, browser pool and identity, telemetry, config, redis, service runtime:
 *              infrastructure and contracts only;
 *   feature    tasks, crawl, webhooks, keys, upstream: infrastructure, domain and contracts, never another feature;
 *   app        composition roots: any lib, never another app.
 * Off to the side: `layer:sdk` (libs/client, published on its own: contracts only), `layer:tool` (tools/) and
 * `layer:e2e` (apps/system-e2e), and the test harness `layer:testing` (libs/testing: infrastructure that tests
 * start), which only tests may import. Tests of the SDK may also use a feature, to check that it reads what the
 * services send.
 */
function boundaries(inTests) {
  const testing = inTests ? ['layer:testing'] : [];
  return {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      { sourceTag: 'layer:contracts', onlyDependOnLibsWithTags: [...testing] },
      {
        sourceTag: 'layer:domain',
        onlyDependOnLibsWithTags: ['layer:contracts', ...testing],
        bannedExternalImports: ['@nestjs/*', 'bullmq', '@nats-io/*', 'playwright*', 'ioredis'],
      },
      { sourceTag: 'layer:infra', onlyDependOnLibsWithTags: ['layer:contracts', 'layer:infra', ...testing] },
      {
        sourceTag: 'layer:feature',
        onlyDependOnLibsWithTags: ['layer:contracts', 'layer:domain', 'layer:infra', ...testing],
      },
      {
        sourceTag: 'layer:app',
        onlyDependOnLibsWithTags: ['layer:contracts', 'layer:domain', 'layer:infra', 'layer:feature', ...testing],
      },
      // The harness itself: what it starts and checks against is infrastructure.
      { sourceTag: 'layer:testing', onlyDependOnLibsWithTags: ['layer:contracts', 'layer:infra', 'layer:testing'] },
      {
        sourceTag: 'layer:sdk',
        onlyDependOnLibsWithTags: ['layer:contracts', ...(inTests ? ['layer:feature', 'layer:testing'] : [])],
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
      group: ['bullmq', 'bullmq/*', '@bull-board/*', '@nestjs/bullmq', '@trawl/tasks'],
      message: 'Only task-service (and libs/tasks) touch BullMQ; go through its NATS subjects instead.',
    },
  ],
};

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
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through @trawl/config, not process.env.',
        },
      ],
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
      // The one-time move of the queues' keys to their hash-tagged prefixes (ADR 0014).
      'tools/redis-migrate/**/*.ts',
    ],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The config lib is the one place that reads the environment; scripts and tests' harness may too.
    files: [
      'libs/config/**/*.ts',
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
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': ['error', boundaries(true)] },
  },
);
