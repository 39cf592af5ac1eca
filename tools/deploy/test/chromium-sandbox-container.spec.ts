import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { findRepoRoot } from '../src/lib/repo-root.util.js';

/**
 * Issue 19, must show 5: Chromium's sandbox proven on in a container started with the manifests' security context.
 *
 * The container is an OCI bundle run by runc (the runtime under containerd and CRI-O), built from what the rendered
 * manifests say of extractor-scrape's pod: its user and group, `allowPrivilegeEscalation: false` (no_new_privs), every
 * capability dropped, a read-only root, the emptyDir volumes as tmpfs, and the Localhost seccomp profile the pod names,
 * translated the way a runtime translates it. Its root is this machine's `/usr` and `/etc`, read-only, standing in for
 * the image (it has the same Debian Chromium). Inside, Chromium is launched with its sandbox through playwright-core and
 * reads chrome://sandbox, Chromium's own report of its layers. The control: the same container under the runtime's
 * default profile (containers-common's, as Docker's) cannot start Chromium's sandbox at all, which is why the pod ships
 * its own profile. Not covered: the network namespace (the container shares the host's; the page is inline), and a
 * node whose kernel or LSM refuses unprivileged user namespaces (docs/deploy.md says what to check there).
 */
const root = findRepoRoot(import.meta.dirname);
const RUNTIME_DEFAULT_PROFILE = '/usr/share/containers/seccomp.json';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why no container can be run here, or undefined when runc can run one. */
function containersUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'runc needs root here, and the tests do not run as root';
  const runc = spawnSync('runc', ['--version'], { encoding: 'utf8' });
  if (runc.error) return `runc is not installed (${runc.error.message}); npm test installs it with apt-get`;
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM}`;
  return undefined;
}

interface PodContext {
  runAsUser: number;
  runAsGroup: number;
  noNewPrivileges: boolean;
  readOnlyRoot: boolean;
  capabilities: string[];
  /** Where emptyDir volumes are mounted. */
  emptyDirs: string[];
  seccompProfile: string;
}

interface K8sContainer {
  name: string;
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsUser?: number;
    runAsGroup?: number;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string }[];
}

/** extractor-scrape's security context, read from the rendered manifests (what `kubectl apply` would get). */
function scrapePodContext(): PodContext {
  const docs = parseAllDocuments(readFileSync(join(root, 'deploy/k8s/trawl.yaml'), 'utf8')).map((d) => d.toJS());
  const deployment = docs.find(
    (d: { kind?: string; metadata?: { name?: string } }) =>
      d?.kind === 'Deployment' && d.metadata?.name?.endsWith('extractor-scrape'),
  );
  if (!deployment) throw new Error('deploy/k8s/trawl.yaml has no extractor-scrape Deployment');
  const pod = deployment.spec.template.spec;
  const container = (pod.containers as K8sContainer[]).find((c) => c.name === 'extractor-scrape');
  if (!container) throw new Error('the extractor-scrape Deployment has no extractor-scrape container');
  const sc = container.securityContext ?? {};
  const profile = pod.securityContext?.seccompProfile ?? {};
  if (profile.type !== 'Localhost') throw new Error(`extractor-scrape's seccomp profile is ${JSON.stringify(profile)}`);
  const emptyDirNames = new Set(
    (pod.volumes as { name: string; emptyDir?: object }[]).filter((v) => v.emptyDir).map((v) => v.name),
  );
  const dropped = sc.capabilities?.drop ?? [];
  return {
    runAsUser: sc.runAsUser ?? pod.securityContext.runAsUser,
    runAsGroup: sc.runAsGroup ?? pod.securityContext.runAsGroup,
    noNewPrivileges: sc.allowPrivilegeEscalation === false,
    readOnlyRoot: sc.readOnlyRootFilesystem === true,
    capabilities: dropped.includes('ALL') ? (sc.capabilities?.add ?? []) : ['(not all dropped)'],
    emptyDirs: (container.volumeMounts ?? []).filter((m) => emptyDirNames.has(m.name)).map((m) => m.mountPath),
    seccompProfile: join(root, 'deploy/k8s/seccomp', profile.localhostProfile),
  };
}

interface DockerSeccompRule {
  names: string[];
  action: string;
  args?: unknown[];
  errnoRet?: number;
  includes?: { caps?: string[]; arches?: string[] };
  excludes?: { caps?: string[]; arches?: string[] };
}

/**
 * A Docker-format seccomp profile as the OCI runtime gets it for an x86-64 container holding `caps`: the rules whose
 * `includes` need a capability it lacks, or whose `excludes` name one it has, are left out (what Docker, Podman and
 * the kubelet's runtimes do).
 */
function ociSeccomp(profile: Record<string, unknown>, caps: string[]): Record<string, unknown> {
  const arches = ['amd64', 'x86_64'];
  const rules = (profile['syscalls'] as DockerSeccompRule[]).filter((r) => {
    if (r.includes?.caps?.some((c) => !caps.includes(c))) return false;
    if (r.includes?.arches && !r.includes.arches.some((a) => arches.includes(a))) return false;
    if (r.excludes?.caps?.some((c) => caps.includes(c))) return false;
    if (r.excludes?.arches?.some((a) => arches.includes(a))) return false;
    return true;
  });
  return {
    defaultAction: profile['defaultAction'],
    ...(profile['defaultErrnoRet'] !== undefined ? { defaultErrnoRet: profile['defaultErrnoRet'] } : {}),
    architectures: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],
    syscalls: rules.map((r) => ({
      names: r.names,
      action: r.action,
      ...(r.args && r.args.length > 0 ? { args: r.args } : {}),
      ...(r.errnoRet !== undefined ? { errnoRet: r.errnoRet } : {}),
    })),
  };
}

/** What runs in the container: its own credentials, a write to the root, then Chromium with its sandbox. */
const CHILD = `
import { readFileSync, writeFileSync } from 'node:fs';
const status = readFileSync('/proc/self/status', 'utf8');
const field = (name) => status.match(new RegExp('^' + name + ':\\\\s*(.*)$', 'm'))?.[1]?.trim();
let rootWrite = 'written';
try { writeFileSync('/trawl-probe', 'x'); } catch (e) { rootWrite = e.code; }
const out = { uid: process.getuid(), gid: process.getgid(), capEff: field('CapEff'), noNewPrivs: field('NoNewPrivs'),
  seccomp: field('Seccomp'), rootWrite };
try {
  const pw = await import(process.env.PW_MODULE);
  const chromium = pw.chromium ?? pw.default.chromium;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, chromiumSandbox: true, timeout: 60000 });
  try {
    const page = await browser.newPage();
    await page.setContent('<p>scraped in a container</p>');
    out.scraped = await page.textContent('p');
    const report = await browser.newPage();
    await report.goto('chrome://sandbox');
    out.sandbox = (await report.innerText('body')).replace(/\\s+/g, ' ');
  } finally {
    await browser.close();
  }
} catch (e) {
  out.launchError = String(e).split('\\n')[0];
}
console.log(JSON.stringify(out));
`;

interface ContainerReport {
  uid: number;
  gid: number;
  capEff: string;
  noNewPrivs: string;
  seccomp: string;
  rootWrite: string;
  scraped?: string;
  sandbox?: string;
  launchError?: string;
}

const unavailable = containersUnavailable();
const describeIfContainers = unavailable ? describe.skip : describe;
if (unavailable) console.warn(`chromium-sandbox-container.spec: skipped: ${unavailable}`);

describeIfContainers(
  'Chromium in a container started with the manifests’ security context (runc, real Chromium)',
  () => {
    const context = unavailable ? undefined : scrapePodContext();
    let work: string;
    let rootfs: string;
    const playwrightDir = dirname(createRequire(import.meta.url).resolve('playwright-core/package.json'));
    // Where the image has it. Not the checkout's own path: a checkout under /tmp would be hidden by the /tmp emptyDir.
    const playwrightInContainer = '/app/node_modules/playwright-core';

    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), 'trawl-container-'));
      // The image's root, empty but for mount points: /usr and /etc come from this machine, read-only.
      rootfs = join(work, 'rootfs');
      for (const dir of ['usr', 'etc', 'proc', 'dev', 'sys', 'tmp', playwrightInContainer.slice(1)]) {
        mkdirSync(join(rootfs, dir), { recursive: true });
      }
      for (const link of ['bin', 'lib', 'lib64', 'sbin']) {
        const host = `/${link}`;
        if (existsSync(host) && lstatSync(host).isSymbolicLink()) symlinkSync(`usr/${link}`, join(rootfs, link));
      }
      // An emptyDir is created world-writable by the kubelet.
      for (const dir of context?.emptyDirs ?? []) {
        mkdirSync(join(rootfs, dir), { recursive: true });
        chmodSync(join(rootfs, dir), 0o1777);
      }
    });
    afterAll(() => {
      if (work) rmSync(work, { recursive: true, force: true });
    });

    /** Runs CHILD in a runc container with the pod's context and the given seccomp profile (Docker format). */
    function runContainer(name: string, profilePath: string): Promise<ContainerReport> {
      if (!context) throw new Error('no pod context');
      const bundle = join(work, name);
      mkdirSync(bundle);
      const ro = ['rbind', 'ro', 'nosuid', 'nodev'];
      const config = {
        ociVersion: '1.0.2',
        process: {
          terminal: false,
          user: { uid: context.runAsUser, gid: context.runAsGroup },
          args: [process.execPath, '--input-type=module', '-e', CHILD],
          env: [
            'PATH=/usr/bin:/bin',
            'HOME=/tmp',
            'TMPDIR=/tmp',
            `PW_MODULE=${join(playwrightInContainer, 'index.mjs')}`,
            `CHROMIUM=${CHROMIUM}`,
          ],
          cwd: '/tmp',
          capabilities: Object.fromEntries(
            ['bounding', 'effective', 'inheritable', 'permitted', 'ambient'].map((set) => [set, context.capabilities]),
          ),
          noNewPrivileges: context.noNewPrivileges,
        },
        root: { path: rootfs, readonly: context.readOnlyRoot },
        hostname: 'extractor-scrape',
        mounts: [
          { destination: '/proc', type: 'proc', source: 'proc' },
          { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755'] },
          {
            destination: '/dev/pts',
            type: 'devpts',
            source: 'devpts',
            options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620'],
          },
          { destination: '/sys', type: 'bind', source: '/sys', options: [...ro, 'noexec'] },
          { destination: '/usr', type: 'bind', source: '/usr', options: ro },
          { destination: '/etc', type: 'bind', source: '/etc', options: ro },
          { destination: playwrightInContainer, type: 'bind', source: playwrightDir, options: ro },
          ...context.emptyDirs.map((dir) => ({
            destination: dir,
            type: 'tmpfs',
            source: 'tmpfs',
            options: ['nosuid', 'nodev', 'mode=1777', 'size=1g'],
          })),
        ],
        linux: {
          namespaces: [{ type: 'pid' }, { type: 'ipc' }, { type: 'uts' }, { type: 'mount' }],
          seccomp: ociSeccomp(JSON.parse(readFileSync(profilePath, 'utf8')), context.capabilities),
          maskedPaths: ['/proc/kcore', '/proc/keys', '/proc/timer_list'],
          readonlyPaths: ['/proc/sys', '/proc/sysrq-trigger'],
        },
      };
      writeFileSync(join(bundle, 'config.json'), JSON.stringify(config));
      const id = `trawl-${name}-${process.pid}`;
      return new Promise((resolve, reject) => {
        execFile('runc', ['run', '--bundle', bundle, id], { timeout: 120_000 }, (err, stdout, stderr) => {
          spawnSync('runc', ['delete', '--force', id]);
          const last = stdout.trim().split('\n').at(-1) ?? '';
          if (last.startsWith('{')) resolve(JSON.parse(last) as ContainerReport);
          else reject(new Error(`the container did not report: ${err?.message ?? ''}\n${stderr}\n${stdout}`));
        });
      });
    }

    it('the manifests give extractor-scrape a non-root user, no privileges and a read-only root', () => {
      expect(context).toMatchObject({ noNewPrivileges: true, readOnlyRoot: true, capabilities: [] });
      expect(context?.runAsUser).toBeGreaterThan(0);
      expect(context?.emptyDirs).toEqual(expect.arrayContaining(['/tmp', '/dev/shm']));
    });

    it('under the pod’s own seccomp profile, Chromium runs with its namespace and seccomp-bpf sandbox', async () => {
      const report = await runContainer('profile', context?.seccompProfile ?? '');
      // The container is what the manifests say: their user, no capability, no_new_privs, a filter, a read-only root.
      expect(report).toMatchObject({
        uid: context?.runAsUser,
        gid: context?.runAsGroup,
        capEff: '0000000000000000',
        noNewPrivs: '1',
        seccomp: '2',
        rootWrite: 'EROFS',
      });
      expect(report.launchError).toBeUndefined();
      expect(report.scraped).toBe('scraped in a container');
      expect(report.sandbox).toContain('Layer 1 Sandbox Namespace');
      expect(report.sandbox).toContain('Seccomp-BPF sandbox Yes');
      expect(report.sandbox).toContain('You are adequately sandboxed.');
    }, 180_000);

    const withDefault = existsSync(RUNTIME_DEFAULT_PROFILE) ? it : it.skip;
    if (!existsSync(RUNTIME_DEFAULT_PROFILE)) {
      console.warn(`chromium-sandbox-container.spec: the control is skipped: no ${RUNTIME_DEFAULT_PROFILE}`);
    }
    withDefault(
      'under the runtime’s default profile (as Docker’s), Chromium’s sandbox cannot start',
      async () => {
        const report = await runContainer('default', RUNTIME_DEFAULT_PROFILE);
        expect(report).toMatchObject({ uid: context?.runAsUser, capEff: '0000000000000000', seccomp: '2' });
        expect(report.sandbox).toBeUndefined();
        expect(report.launchError).toBeDefined();
      },
      180_000,
    );
  },
);
