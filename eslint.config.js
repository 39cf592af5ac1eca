import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Module boundaries by Nx tag. Tests (and only tests) may also use the type:testing harness. */
function boundaries(inTests) {
  const testing = inTests ? ['type:testing'] : [];
  return {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      // Apps are composition roots: they use libs, never another app.
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:util', ...testing] },
      // The wire contract depends on nothing of ours.
      { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [...testing] },
      // Domain libs (parsers) are pure: the contract's types only, and no framework.
      {
        sourceTag: 'type:domain',
        onlyDependOnLibsWithTags: ['type:contracts', ...testing],
        bannedExternalImports: ['@nestjs/*', 'bullmq', '@nats-io/*', 'playwright*', 'ioredis'],
      },
      { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', ...testing] },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:testing'] },
      { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:util', ...testing] },
      { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:testing'] },
    ],
  };
}

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
    },
  },
  {
    // The config lib is the one place that reads the environment; scripts and tests' harness may too.
    files: ['libs/config/**/*.ts', 'libs/testing/**/*.ts', 'libs/*/src/testing/**/*.ts', '**/test/**/*.ts', 'tools/**/*.ts', 'scripts/**/*.ts', '**/*.spec.ts', '**/*.e2e-spec.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': ['error', boundaries(true)] },
  },
);
