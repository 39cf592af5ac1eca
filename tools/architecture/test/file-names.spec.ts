import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The role suffixes of docs/naming.md: the first cell of each row of its table, e.g. `| \`.service\` | … |`. */
function documentedRoles(): Set<string> {
  const roles = new Set<string>();
  for (const line of readFileSync(resolve(ROOT, 'docs/naming.md'), 'utf8').split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const [, role] of cell.matchAll(/`\.([a-z0-9-]+)`/g)) roles.add(role!);
  }
  return roles;
}

/** The exemptions of docs/naming.md ("Exempt"). */
const EXEMPT = [/^index\.ts$/, /^main\.ts$/, /\.generated\.ts$/, /\.d\.ts$/];

const KEBAB_WORDS = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why `path` breaks the naming rule, or undefined when it follows it. */
export function namingProblem(path: string, roles: ReadonlySet<string>): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (EXEMPT.some((e) => e.test(name))) return undefined;
  if (!name.endsWith('.ts')) return undefined;
  const parts = name.slice(0, -'.ts'.length).split('.');
  if (parts.some((p) => !KEBAB_WORDS.test(p))) return `${path}: not kebab-case`;
  if (parts.length < 2) return `${path}: no role suffix (<stem>.<role>.ts, roles in docs/naming.md)`;
  const role = parts[parts.length - 1]!;
  if (!roles.has(role)) return `${path}: ".${role}" is not a role of docs/naming.md`;
  return undefined;
}

const pascal = (kebab: string): string => kebab.replace(/(?:^|-)([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * Why the classes `text` exports break "class named after the file", or undefined: a file exporting classes (error
 * classes aside: they go with the module that throws them) exports one named `<Stem>` or `<Stem><Role>`
 * (`task-submitter.service.ts` → `TaskSubmitter`, `api-key.store.ts` → `ApiKeyStore`); a validation constraint may
 * be `Is<Stem>` (`url-params.validator.ts` → `IsUrlParams`).
 */
export function classNameProblem(path: string, text: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (EXEMPT.some((e) => e.test(name)) || /\.(e2e-)?spec\.ts$/.test(name)) return undefined;
  const classes = [...text.matchAll(/^export (?:abstract )?class (\w+)/gm)]
    .map((m) => m[1]!)
    .filter((c) => !c.endsWith('Error'));
  if (classes.length === 0) return undefined;
  const parts = name.slice(0, -'.ts'.length).split('.');
  const stem = pascal(parts.slice(0, -1).join('-'));
  const role = pascal(parts[parts.length - 1]!);
  const named = [stem, `${stem}${role}`, ...(role === 'Validator' ? [`Is${stem}`] : [])];
  if (classes.some((c) => named.includes(c))) return undefined;
  return `${path}: exports ${classes.join(', ')}, none named ${named.join(' or ')}`;
}

/** The git-tracked TypeScript files the rule covers. */
function trackedSources(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', 'apps/*/src/*', 'libs/*/src/*', 'tools/*/src/*'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return out.split('\0').filter((p) => p.endsWith('.ts'));
}

/** Issue 9, 7: file names carry the role suffix of STYLE.md, as docs/naming.md spells it out. */
describe('file names', () => {
  const roles = documentedRoles();

  it('reads the roles of docs/naming.md, STYLE.md list included', () => {
    for (const r of ['module', 'controller', 'service', 'processor', 'dto', 'env', 'spec', 'e2e-spec', 'types'])
      expect(roles).toContain(r);
  });

  it('refuses a file without a role, an unknown role and a non-kebab name; lets the exemptions pass', () => {
    expect(namingProblem('libs/tasks/src/lib/task-submitter.ts', roles)).toMatch(/no role suffix/);
    expect(namingProblem('libs/tasks/src/lib/task.submitterish.ts', roles)).toMatch(/not a role/);
    expect(namingProblem('libs/tasks/src/lib/taskSubmitter.service.ts', roles)).toMatch(/kebab/);
    expect(namingProblem('libs/tasks/src/lib/task-submitter.service.ts', roles)).toBeUndefined();
    expect(namingProblem('libs/tasks/src/lib/task-submitter.service.spec.ts', roles)).toBeUndefined();
    for (const exempt of [
      'libs/tasks/src/index.ts',
      'apps/gateway/src/main.ts',
      'x/api-types.generated.ts',
      'x/a.d.ts',
    ])
      expect(namingProblem(exempt, roles)).toBeUndefined();
  });

  it('every tracked source under apps/*/src, libs/*/src and tools/*/src is <stem>.<role>.ts', () => {
    const files = trackedSources();
    expect(files.length).toBeGreaterThan(300);
    expect(files.map((f) => namingProblem(f, roles)).filter(Boolean)).toEqual([]);
  });

  it('refuses a class not named after its file', () => {
    const code = 'export class TaskSubmitter {}\nexport class SubmitError extends Error {}\n';
    expect(classNameProblem('libs/tasks/src/lib/task-submitter.service.ts', code)).toBeUndefined();
    expect(classNameProblem('libs/keys/src/lib/api-key.store.ts', 'export class ApiKeyStore {}')).toBeUndefined();
    expect(classNameProblem('libs/tasks/src/lib/task-submit.service.ts', code)).toMatch(/none named TaskSubmit/);
    expect(
      classNameProblem('libs/tasks/src/lib/task-error.mapper.ts', 'export class FleetOutageError extends Error {}'),
    ).toBe(undefined);
  });

  it('every exported class of those files is named after its file', () => {
    const problems = trackedSources().map((f) => classNameProblem(f, readFileSync(resolve(ROOT, f), 'utf8')));
    expect(problems.filter(Boolean)).toEqual([]);
  });
});
