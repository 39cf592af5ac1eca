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
// off reports it is not sandboxed, so the check can tell the two apart. The pod's seccomp profile is then loaded as a
// filter (libseccomp, no_new_privs, as runc loads it) around the same launch: the sandbox starts under it, and does
// not under a default-like filter that keeps clone from creating namespaces. No container runtime is involved (no
// image, no container namespaces, cgroups or AppArmor): see ADR 0033.

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

/**
 * Loads a seccomp profile of the runtimes' JSON format into a filter (libseccomp through ctypes), drops to `uid` when
 * root, and execs the rest of argv under it with no_new_privs, as runc does for a pod with
 * `allowPrivilegeEscalation: false`. Mode `profile`: the profile as written. Mode `default-like`: what the runtimes'
 * default profile does to a process without CAP_SYS_ADMIN, on top of it: `clone` only without namespace flags,
 * `unshare` and `setns` refused, `clone3` ENOSYS (so libc falls back to `clone`).
 */
const SECCOMP_HELPER = `
import ctypes, json, os, sys
lib = ctypes.CDLL('libseccomp.so.2')
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_init.argtypes = [ctypes.c_uint32]
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p]
lib.seccomp_load.argtypes = [ctypes.c_void_p]
class Cmp(ctypes.Structure):
    _fields_ = [('arg', ctypes.c_uint), ('op', ctypes.c_int), ('a', ctypes.c_uint64), ('b', ctypes.c_uint64)]
ALLOW = 0x7fff0000
def errno(e): return 0x00050000 | (e & 0xffff)
mode, path, uid = sys.argv[1], sys.argv[2], int(sys.argv[3])
profile = json.load(open(path))
ctx = lib.seccomp_init(errno(profile['defaultErrnoRet']))
for group in profile['syscalls']:
    if group['action'] != 'SCMP_ACT_ALLOW': continue
    for name in group['names']:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0: continue
        if mode == 'default-like' and name in ('unshare', 'setns'): continue
        if mode == 'default-like' and name == 'clone':
            no_namespaces = Cmp(0, 7, 0x7E020000, 0)  # SCMP_CMP_MASKED_EQ on the flags
            rc = lib.seccomp_rule_add_array(ctx, ALLOW, nr, 1, ctypes.byref(no_namespaces))
        elif mode == 'default-like' and name == 'clone3':
            rc = lib.seccomp_rule_add_array(ctx, errno(38), nr, 0, None)
        else:
            rc = lib.seccomp_rule_add_array(ctx, ALLOW, nr, 0, None)
        if rc != 0: sys.exit('seccomp rule for %s: %d' % (name, rc))
if os.getuid() == 0:
    os.setgroups([]); os.setgid(uid); os.setuid(uid)
rc = lib.seccomp_load(ctx)
if rc != 0: sys.exit('seccomp_load: %d' % rc)
os.execvp(sys.argv[4], sys.argv[4:])
`;

/** The profile extractor-scrape's pod runs under (tools/deploy renders it). */
const PROFILE = join(import.meta.dirname, '../../../../deploy/k8s/seccomp/trawl-chromium.json');

/** Why a seccomp profile cannot be applied here (python3 with libseccomp), or undefined when it can. */
function seccompUnavailable(): string | undefined {
  const probe = spawnSync('python3', ['-c', "import ctypes; ctypes.CDLL('libseccomp.so.2')"], { encoding: 'utf8' });
  if (probe.error) return `cannot run python3: ${probe.error.message}`;
  if (probe.status !== 0) return `libseccomp cannot be loaded: ${probe.stderr.trim().split('\n').at(-1) ?? ''}`;
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

  /** Chromium launched by a child process as `nobody`; with `seccomp`, under that filter (SECCOMP_HELPER). */
  function launchAs(sandbox: boolean, seccomp?: 'profile' | 'default-like'): Promise<ChildReport> {
    const node = [process.execPath, '--input-type=module', '-e', CHILD];
    const [cmd, ...args] = seccomp
      ? ['python3', '-c', SECCOMP_HELPER, seccomp, PROFILE, String(NOBODY), ...node]
      : unprivileged(node);
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

  const seccompMissing = seccompUnavailable();
  if (seccompMissing)
    console.warn(`browser-pool-sandbox.spec: the seccomp profile cases are skipped: ${seccompMissing}`);
  const itWithSeccomp = seccompMissing ? it.skip : it;

  // No container runtime here: the profile is loaded by libseccomp as runc would load it, no_new_privs set, as nobody.
  itWithSeccomp(
    "starts the sandbox under the pod's seccomp profile (deploy/k8s/seccomp/trawl-chromium.json)",
    async () => {
      const report = await launchAs(true, 'profile');
      expect(report.uid).toBe(NOBODY);
      expect(report.scraped).toBe('scraped in a sandbox');
      expect(report.sandbox).toContain('Seccomp-BPF sandbox Yes');
      expect(report.sandbox).toContain('You are adequately sandboxed.');
    },
    90_000,
  );

  itWithSeccomp(
    'cannot start it where clone may not create namespaces (as under a default profile)',
    async () => {
      const err = await launchAs(true, 'default-like').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain('No usable sandbox!');
    },
    90_000,
  );
});
