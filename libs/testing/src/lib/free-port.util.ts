import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where test servers listen: below the kernel's ephemeral range (32768–60999 on Linux), which is where every outgoing
 * connection takes its local port. A port handed out from inside that range can be taken by a client's connection
 * (a service dialling Redis, say) between the check and the server's own listen, and the server then fails to start:
 * a rare, load-dependent failure. Ports from below it are only ever taken by a listen.
 */
function portWindow(): { low: number; high: number } {
  let ephemeralLow = 32768;
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low) && low > 12000) ephemeralLow = low;
  } catch {
    // not Linux: keep the usual bound
  }
  return { low: 10000, high: ephemeralLow - 1 };
}

/** Ports handed out by this process, not handed out again (a test takes several before it starts anything). */
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * `count` consecutive TCP ports on 127.0.0.1 that were free a moment ago, the first returned, from below the ephemeral
 * range (see `portWindow`), chosen at random so that processes running side by side rarely try the same ones.
 */
export async function freePortRange(count: number): Promise<number> {
  const { low, high } = portWindow();
  for (let attempt = 0; attempt < 200; attempt++) {
    const first = low + Math.floor(Math.random() * (high - low - count));
    const ports = Array.from({ length: count }, (_, i) => first + i);
    if (ports.some((p) => handedOut.has(p))) continue;
    let free = true;
    for (const port of ports) {
      if (!(await canListen(port))) {
        free = false;
        break;
      }
    }
    if (!free) continue;
    for (const port of ports) handedOut.add(port);
    return first;
  }
  throw new Error(`no ${count} free consecutive ports between ${low} and ${high}`);
}

/** A TCP port on 127.0.0.1 that was free a moment ago (see `freePortRange`). */
export function freePort(): Promise<number> {
  return freePortRange(1);
}
