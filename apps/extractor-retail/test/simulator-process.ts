import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, waitForPort } from '@trawl/testing';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The upstream simulator as its own process on a free loopback port, from dist/ (tools are not imported by apps;
 * `npm test` builds first, or run `npm run build`).
 */
export async function startBuiltSimulator(): Promise<{ url: string; stop(): Promise<void> }> {
  const main = resolve(root, 'dist/tools/upstream-simulator/src/main.js');
  if (!existsSync(main))
    throw new Error(`${main} is missing: run \`npm run build\` first (the simulator runs from dist/)`);
  const port = await freePort();
  const proc = startProcess(process.execPath, [main], { env: { SIMULATOR_PORT: String(port) } });
  await waitForPort(port, '127.0.0.1', 20_000, proc);
  return { url: `http://127.0.0.1:${port}`, stop: () => proc.stop() };
}
