import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The Trawl checkout containing `start` (a file or directory path): the nearest package.json named "trawl". */
export function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'trawl') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no Trawl checkout above ${start}`);
    dir = parent;
  }
}
