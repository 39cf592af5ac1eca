import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Where a Chrome version came from: the Chromium binary itself, or header-generator's newest recorded Chrome. */
export type ChromeVersionSource = 'chromium' | 'dataset';

export interface ResolvedChromeVersion {
  /** Full version, e.g. `156.0.8078.79`. */
  version: string;
  source: ChromeVersionSource;
}

const VERSION = /(\d+\.\d+\.\d+\.\d+)/;

/**
 * The version of the Chromium at `executablePath` (`chromium --version`, run once per path and remembered), or
 * undefined when there is no such binary or it prints no version.
 */
export function chromiumVersionOf(executablePath: string): string | undefined {
  const known = probed.get(executablePath);
  if (known !== undefined || probed.has(executablePath)) return known;
  let version: string | undefined;
  try {
    const out = execFileSync(executablePath, ['--version'], {
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      encoding: 'utf8',
    });
    version = VERSION.exec(out)?.[1];
  } catch {
    version = undefined; // not installed here (the HTTP extractors' image has no browser)
  }
  probed.set(executablePath, version);
  return version;
}
const probed = new Map<string, string | undefined>();

/**
 * The newest Chrome that header-generator's dataset recorded (its reduced UA form, `149.0.0.0`): the version a
 * service without a browser claims. It moves with the library's releases, never with our code.
 */
export function newestRecordedChrome(): string {
  const dir = dirname(createRequire(import.meta.url).resolve('header-generator'));
  const browsers = JSON.parse(readFileSync(join(dir, 'data_files', 'browser-helper-file.json'), 'utf8')) as string[];
  let best: number[] = [];
  for (const entry of browsers) {
    const m = /^chrome\/([\d.]+)\|/.exec(entry);
    if (!m) continue;
    const parts = m[1].split('.').map(Number);
    if (compare(parts, best) > 0) best = parts;
  }
  if (best.length === 0) throw new Error('header-generator records no Chrome version');
  return `${best[0]}.0.0.0`;
}

/**
 * The Chrome version identities claim: the real Chromium's (`executablePath`, else the system Chromium) when one is
 * installed, else header-generator's newest recorded Chrome. A browser pool passes its launched browser's
 * `browser.version()` instead (exact, no process spawned).
 */
export function resolveChromeVersion(executablePath = '/usr/bin/chromium'): ResolvedChromeVersion {
  const real = chromiumVersionOf(executablePath);
  return real ? { version: real, source: 'chromium' } : { version: newestRecordedChrome(), source: 'dataset' };
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
