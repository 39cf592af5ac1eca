import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, resolveChromiumPath, sandboxDecision } from './chromium-path.resolver.js';

// Issue 19, Medium 8: Chromium runs WITH its sandbox as a non-root user, as the shipped pod runs it (uid 1000, no
// privilege escalation, no setuid helper: the sandbox rests on unprivileged user namespaces). The test process may be
// root (this machine's is), so the browser side runs in a child process as `nobody` (setpriv), which launches
// Chromium through playwright-core with the pool's flags and `chromiumSandbox` as the pool sets it, scrapes a
// loopback page and reads chrome://sandbox (Chromium's own report of its layers). The same launch with the sandbox
// off reports it is not sandboxed, so the check can tell the two apart. No container runtime is involved: the pod's
// seccomp profile is not applied here (see docs/deploy.md).

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** Runs argv as the unprivileged user (as itself when the test is not root). */
function unprivileged(argv: string[]): string[] {
  return asRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...argv] : argv;
}

/** Why the sandbox cannot start here (no user namespaces for an unprivileged user), or undefined when it can. */
function userNamespacesUnavailable(): string | undefined {
  const [cmd, ...args] = unprivileged(['unshare', '--user', 'true']);
  const probe = spawnSync(cmd, args, { encoding: 'utf8' });
  if (probe.error) return `cannot run ${cmd}: ${probe.error.message}`;
  if (probe.status !== 0) return `an unprivileged user cannot create a user namespace: ${probe.stderr.trim()}`;
  return undefined;
}

const CHILD = `
const pw = await import(process.env.PW_MODULE);
const chromium = pw.chromium ?? pw.default.chromium;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  chromiumSandbox: process.env.SANDBOX === 'true',
  args: JSON.parse(process.env.ARGS),
});
try {
  const page = await browser.newPage();
  await page.goto(process.env.SITE);
  const scraped = await page.textContent('p');
  const report = await browser.newPage();
  await report.goto('chrome://sandbox');
  const sandbox = (await report.innerText('body')).replace(/\\s+/g, ' ');
  console.log(JSON.stringify({ uid: process.getuid(), scraped, sandbox }));
} finally {
  await browser.close();
}
`;

interface ChildReport {
  uid: number;
  scraped: string;
  sandbox: string;
}

const unavailable = userNamespacesUnavailable();
const describeIfUserNamespaces = unavailable ? describe.skip : describe;
if (unavailable)
  console.warn(`browser-pool-sandbox.spec: skipped, Chromium's sandbox cannot start here: ${unavailable}`);

describeIfUserNamespaces('Chromium with its sandbox, as a non-root user (real Chromium, user namespaces)', () => {
  let site: LoopbackServer;
  let home: string;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>sandboxed</title><p>scraped in a sandbox</p>');
    });
    home = mkdtempSync(join(tmpdir(), 'trawl-sandbox-'));
    chmodSync(home, 0o777); // the unprivileged user's HOME and Playwright's temporary profile
  });
  afterAll(async () => {
    await site?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  function launchAs(sandbox: boolean): Promise<ChildReport> {
    const [cmd, ...args] = unprivileged([process.execPath, '--input-type=module', '-e', CHILD]);
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      TMPDIR: home,
      PW_MODULE: createRequire(import.meta.url).resolve('playwright-core'),
      CHROMIUM: resolveChromiumPath(process.env.CHROMIUM_PATH),
      SANDBOX: String(sandbox),
      ARGS: JSON.stringify(CHROMIUM_ARGS),
      SITE: `${site.url}/page`,
    };
    return new Promise((resolve, reject) => {
      execFile(cmd, args, { env, cwd: home, timeout: 60_000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildReport);
      });
    });
  }

  it('the pool keeps the sandbox on for a non-root user unless BROWSER_NO_SANDBOX says otherwise', () => {
    expect(sandboxDecision(false, 1000)).toEqual({ sandbox: true });
    expect(sandboxDecision(true, 1000)).toEqual({ sandbox: false, reason: 'BROWSER_NO_SANDBOX=true' });
    expect(CHROMIUM_ARGS).not.toContain('--no-sandbox');
  });

  it('scrapes a page with the namespace and seccomp-bpf sandbox on', async () => {
    const report = await launchAs(sandboxDecision(false, NOBODY).sandbox);
    expect(report.uid).not.toBe(0);
    expect(report.scraped).toBe('scraped in a sandbox');
    expect(report.sandbox).toContain('Layer 1 Sandbox Namespace');
    expect(report.sandbox).toContain('Seccomp-BPF sandbox Yes');
    expect(report.sandbox).toContain('You are adequately sandboxed.');
  }, 90_000);

  it('reports the difference when the sandbox is off (--no-sandbox)', async () => {
    const report = await launchAs(false);
    expect(report.scraped).toBe('scraped in a sandbox');
    expect(report.sandbox).not.toContain('You are adequately sandboxed.');
  }, 90_000);
});
