// Container health check without curl: `node /app/healthcheck.mjs [port] [path]`. Exit 0 when it answers 2xx.
// The port defaults to PORT for the gateway (8080) and METRICS_PORT (9464) for every other service; the path to
// /health/ready.
const env = process.env;
const port = process.argv[2] ?? (env.TRAWL_SERVICE === 'gateway' ? (env.PORT ?? '8080') : (env.METRICS_PORT ?? '9464'));
const path = process.argv[3] ?? '/health/ready';
try {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(3000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
