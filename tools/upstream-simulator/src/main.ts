import { routesFor } from './simulator-routes.constants.js';
import { startSimulator } from './simulator.server.js';
import { readSimulatorOptions } from './simulator.options.js';

// The upstream simulator as a process: `node dist/tools/upstream-simulator/src/main.js` (scripts/start.sh starts it
// when TRAWL_SIMULATOR=1). Configuration from SIMULATOR_* variables and `--mode classic|2026` (see README).
try {
  const options = readSimulatorOptions(process.env, process.argv.slice(2));
  const sim = await startSimulator(options, routesFor(options.mode));
  console.log(
    JSON.stringify({
      msg: 'upstream simulator listening',
      url: sim.url,
      pagesDir: options.pagesDir ?? null,
      latencyMs: options.latencyMs,
      mode: options.mode,
    }),
  );
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (error: unknown) {
  console.error(error);
  process.exit(1);
}
