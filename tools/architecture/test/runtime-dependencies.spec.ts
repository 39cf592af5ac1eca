import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/**
 * The sources the images run: every app's and lib's `src` but the tests, the test harnesses (libs/testing) and the
 * whole-system tests. The images install with `npm ci --omit=dev` (deploy/Dockerfile), so a package these import that
 * is only a devDependency is missing in production while every test passes (the dev tree has it).
 */
function shippedSources(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'test') walk(path);
      } else if (e.name.endsWith('.ts') && !/\.(e2e-)?spec\.ts$/.test(e.name)) out.push(relative(ROOT, path));
    }
  };
  for (const top of ['apps', 'libs']) {
    for (const project of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      if (!project.isDirectory() || project.name === 'testing' || project.name.endsWith('-e2e')) continue;
      if (readdirSync(join(ROOT, top, project.name)).includes('src')) walk(join(ROOT, top, project.name, 'src'));
    }
  }
  return out.sort();
}

/**
 * The dependencies a source's package declares: a project published on its own (libs/client, with its own
 * package.json) declares its own; every other project is the workspace's, installed in the images.
 */
function dependenciesOf(path: string): Record<string, string> {
  const project = path.split('/').slice(0, 2).join('/');
  try {
    const own = JSON.parse(readFileSync(join(ROOT, project, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    return own.dependencies ?? {};
  } catch {
    return PACKAGE.dependencies;
  }
}

/** The npm package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for anything else. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (!name || name.startsWith('@trawl/') || builtinModules.includes(name)) return undefined;
  return name;
}

/** Packages imported at run time (`import … from`, `export … from`, `import()`, `require()`), not type-only imports. */
function runtimeImports(text: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /^\s*import\s+(?!type\s)(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm,
    /^\s*export\s+(?!type\s)[^'";]*?\s+from\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const m of text.matchAll(pattern)) {
      const name = packageOf(m[1] as string);
      if (name) found.add(name);
    }
  }
  return [...found];
}

describe('runtime dependencies', () => {
  const files = shippedSources();

  it('reads the sources the images run', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('apps/gateway/src/main.ts');
    expect(files.some((f) => f.startsWith('libs/testing/'))).toBe(false);
  });

  it('finds imports as the runtime does, type-only ones left out', () => {
    const text = [
      "import { a } from 'pkg-a';",
      "import type { B } from 'pkg-b';",
      "import 'pkg-c/register';",
      "export { d } from '@scope/pkg-d/sub';",
      "const e = await import('pkg-e');",
      "import { f } from 'node:fs';",
      "import { g } from '@trawl/contracts';",
      "import { h } from './local.js';",
    ].join('\n');
    expect(runtimeImports(text).sort()).toEqual(['@scope/pkg-d', 'pkg-a', 'pkg-c', 'pkg-e']);
  });

  it('lists every package the shipped sources import in `dependencies`, not only in `devDependencies`', () => {
    const missing: string[] = [];
    for (const path of files) {
      for (const name of runtimeImports(readFileSync(join(ROOT, path), 'utf8'))) {
        if (!(name in dependenciesOf(path))) missing.push(`${path}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
