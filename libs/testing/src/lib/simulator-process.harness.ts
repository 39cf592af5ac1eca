import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.util.js';
import { startProcess, waitForPort } from './processes.util.js';

const WORKSPACE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface RunningSimulator {
  /** Origin to point SEARCH_BASE_URL, MAPS_BASE_URL and RETAIL_BASE_URL at. */
  url: string;
  stop(): Promise<void>;
}

/**
 * The upstream simulator (tools/upstream-simulator) as its own process on a free loopback port, from dist/ (apps do
 * not import tools; `npm test` builds first, or run `npm run build`). `env` is its SIMULATOR_* configuration, e.g.
 * `{ SIMULATOR_MODE: '2026' }` for the 2025-2026 sites (walls for plain HTTP clients, content for a real browser).
 */
export async function startBuiltSimulator(env: Record<string, string> = {}): Promise<RunningSimulator> {
  const main = resolve(WORKSPACE_ROOT, 'dist/tools/upstream-simulator/src/main.js');
  if (!existsSync(main))
    throw new Error(`${main} is missing: run \`npm run build\` first (the simulator runs from dist/)`);
  const port = await freePort();
  const proc = startProcess(process.execPath, [main], { env: { ...env, SIMULATOR_PORT: String(port) } });
  await waitForPort(port, '127.0.0.1', 20_000, proc);
  return { url: `http://127.0.0.1:${port}`, stop: () => proc.stop() };
}
