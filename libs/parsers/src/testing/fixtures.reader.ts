// Test-only helper: locates the shared real-page fixtures. They are not ours to copy into the repo, so tests read
// them from ../shared/fixtures (or TRAWL_FIXTURES_DIR) and skip with a clear message when they are absent.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const workspaceRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

export const FIXTURES_DIR = process.env.TRAWL_FIXTURES_DIR ?? join(workspaceRoot, '..', 'shared', 'fixtures');

export function fixturesAvailable(category: 'serp' | 'maps' | 'retail'): boolean {
  const ok = existsSync(join(FIXTURES_DIR, category));
  if (!ok) {
    console.warn(
      `[fixtures] ${join(FIXTURES_DIR, category)} not found: skipping the ${category} conformance suite. Set TRAWL_FIXTURES_DIR to run it.`,
    );
  }
  return ok;
}

/** Fixture file names of a category, optionally filtered by extension. */
export function listFixtures(category: 'serp' | 'maps' | 'retail', ext?: string): string[] {
  if (!existsSync(join(FIXTURES_DIR, category))) return [];
  return readdirSync(join(FIXTURES_DIR, category))
    .filter((f) => !ext || f.endsWith(ext))
    .sort();
}

export function readFixture(category: 'serp' | 'maps' | 'retail', name: string): string {
  return readFileSync(join(FIXTURES_DIR, category, name), 'utf8');
}

export function readExpected(category: 'serp' | 'maps' | 'retail', baseName: string): unknown | undefined {
  const p = join(FIXTURES_DIR, category, `${baseName}.expected.json`);
  return existsSync(p) ? JSON.parse(readFileSync(p, 'utf8')) : undefined;
}
