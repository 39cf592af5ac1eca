/**
 * Which upstream the simulator plays: `classic` answers any HTTP client with content (the HTTP-friendly sites of
 * 2023-2024); `2026` answers as Google and Amazon do in 2025-2026 (JavaScript walls, script-written results, consent
 * and unusual-traffic pages; see the README).
 */
export type SimulatorMode = 'classic' | '2026';
export const SIMULATOR_MODES: readonly SimulatorMode[] = ['classic', '2026'];

/** How the simulator runs. From the environment in `main.ts`; tests build it directly. */
export interface SimulatorOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  host: string;
  /** Folder of saved pages served by request path (before the generated pages). */
  pagesDir?: string;
  /** Delay before every answer, ms. */
  latencyMs: number;
  /** Every Nth page request is answered as blocked (0: never). Models an upstream that blocks now and then. */
  blockEvery: number;
  /** Which upstream to play (default `classic`). */
  mode?: SimulatorMode;
}

export const DEFAULT_SIMULATOR_PORT = 8090;

/**
 * Reads SIMULATOR_PORT, SIMULATOR_HOST, SIMULATOR_PAGES_DIR, SIMULATOR_LATENCY_MS, SIMULATOR_BLOCK_EVERY and
 * SIMULATOR_MODE (`classic` or `2026`); `--mode <m>` in `argv` wins over SIMULATOR_MODE.
 */
export function readSimulatorOptions(
  env: Record<string, string | undefined>,
  argv: readonly string[] = [],
): SimulatorOptions {
  const int = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
    return n;
  };
  return {
    port: int('SIMULATOR_PORT', DEFAULT_SIMULATOR_PORT),
    host: env.SIMULATOR_HOST || '127.0.0.1',
    pagesDir: env.SIMULATOR_PAGES_DIR || undefined,
    latencyMs: int('SIMULATOR_LATENCY_MS', 0),
    blockEvery: int('SIMULATOR_BLOCK_EVERY', 0),
    mode: readMode(env, argv),
  };
}

function readMode(env: Record<string, string | undefined>, argv: readonly string[]): SimulatorMode {
  const flag = argv.findIndex((a) => a === '--mode' || a.startsWith('--mode='));
  const fromArgv = flag < 0 ? undefined : argv[flag].includes('=') ? argv[flag].split('=')[1] : argv[flag + 1];
  const raw = fromArgv ?? env.SIMULATOR_MODE ?? '';
  if (raw === '') return 'classic';
  if (!(SIMULATOR_MODES as readonly string[]).includes(raw)) {
    throw new Error(
      `${fromArgv === undefined ? 'SIMULATOR_MODE' : '--mode'} must be one of ${SIMULATOR_MODES.join(', ')}, got "${raw}"`,
    );
  }
  return raw as SimulatorMode;
}
