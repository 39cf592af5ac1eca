import { loadEnv } from '@trawl/config';
import { startTelemetry, TelemetryEnv } from '@trawl/telemetry';

// Telemetry first: the app is imported only after the SDK can patch what it loads (see libs/telemetry).
try {
  const telemetry = await startTelemetry({ serviceName: 'extractor-scrape', env: loadEnv(TelemetryEnv) });
  const { bootstrap } = await import('./app.bootstrap.js');
  await bootstrap({ telemetry });
} catch (error: unknown) {
  console.error(error);
  process.exit(1);
}
