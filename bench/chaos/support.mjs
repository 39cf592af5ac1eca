// Loopback helpers the chaos scripts share (run.mjs, failover.mjs).
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((ok, ko) => {
    const s = createServer().once('error', ko);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** Whether something listens on the port (it cannot be bound). */
export const tcpOpen = (port) =>
  new Promise((ok) => {
    const s = createServer();
    s.once('error', () => ok(true));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(false)));
  });

/** Polls `check` every 100 ms until it answers truthy, at most `ms`. */
export async function waitFor(check, what, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
