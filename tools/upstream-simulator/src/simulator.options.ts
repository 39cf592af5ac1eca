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
}

export const DEFAULT_SIMULATOR_PORT = 8090;

/** Reads SIMULATOR_PORT, SIMULATOR_HOST, SIMULATOR_PAGES_DIR, SIMULATOR_LATENCY_MS, SIMULATOR_BLOCK_EVERY. */
export function readSimulatorOptions(env: Record<string, string | undefined>): SimulatorOptions {
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
  };
}
