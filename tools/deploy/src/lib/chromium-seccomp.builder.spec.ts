import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { parseAllDocuments } from 'yaml';
import {
  chromiumSeccompProfile,
  chromiumSeccompProfileJson,
  DENIED_SYSCALLS,
  USER_NAMESPACE_SYSCALLS,
} from './chromium-seccomp.builder.js';
import { toYaml } from './manifests-yaml.serializer.js';
import { renderManifests, type KubeObject } from './manifests.renderer.js';
import { validateManifests } from './manifests.validator.js';
import { findRepoRoot } from './repo-root.util.js';
import { SERVICE_CATALOG } from './service-catalog.constants.js';
import { loadValues, type TrawlValues } from './trawl-values.reader.js';

// Issue 19, Medium 8: the shipped pod gives Chromium what its sandbox needs (a Localhost seccomp profile that allows
// user namespaces) under the pod's restrictions (non-root, no privilege escalation, no capabilities, read-only root
// filesystem), and `--no-sandbox` only behind an explicit switch. That Chromium starts sandboxed as a non-root user
// with user namespaces is shown by libs/browser-pool's browser-pool-sandbox.spec.ts; no container runtime runs here,
// so the profile is checked as data, not applied.

const root = findRepoRoot(import.meta.dirname);
const external = (v: TrawlValues) => ({ externalSecrets: v.secrets.create ? [] : [v.secrets.name] });

function scrapePod(objects: KubeObject[]) {
  const d = objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'trawl-extractor-scrape') as
    IDeployment | undefined;
  const pod = d?.spec?.template.spec;
  if (!pod) throw new Error('no extractor-scrape pod');
  return pod;
}

const envOf = (pod: ReturnType<typeof scrapePod>) =>
  Object.fromEntries((pod.containers[0]?.env ?? []).map((e) => [e.name, e.value]));

describe("Chromium's seccomp profile", () => {
  const profile = chromiumSeccompProfile();
  const allowed = new Set(profile.syscalls.flatMap((s) => (s.action === 'SCMP_ACT_ALLOW' ? s.names : [])));

  it('refuses by default and allows what user namespaces need', () => {
    expect(profile.defaultAction).toBe('SCMP_ACT_ERRNO');
    for (const name of USER_NAMESPACE_SYSCALLS) expect(allowed.has(name)).toBe(true);
    // What a browser and Node need day to day.
    for (const name of ['read', 'write', 'mmap', 'mprotect', 'futex', 'epoll_pwait', 'socket', 'connect', 'execve'])
      expect(allowed.has(name)).toBe(true);
  });

  it('refuses the calls that reach the host, not the process', () => {
    for (const name of DENIED_SYSCALLS) expect(allowed.has(name)).toBe(false);
    for (const name of ['mount', 'pivot_root', 'kexec_load', 'init_module', 'bpf', 'io_uring_setup', 'ptrace'])
      expect([name, allowed.has(name)]).toEqual([name, name === 'ptrace']); // ptrace: Chromium's crash handler
  });

  it('matches the committed deploy/k8s/seccomp/trawl-chromium.json (re-render: main.js seccomp -o …)', () => {
    const committed = readFileSync(join(root, 'deploy', 'k8s', 'seccomp', 'trawl-chromium.json'), 'utf8');
    // The same profile (the file is kept in prettier's layout, so the objects are compared, not the bytes).
    expect(JSON.parse(committed)).toEqual(JSON.parse(chromiumSeccompProfileJson()));
  });
});

describe("extractor-scrape's pod runs Chromium with its sandbox", () => {
  it('runs under the Localhost profile, non-root, no escalation, no capabilities, read-only root; no --no-sandbox', async () => {
    const values = loadValues(root);
    const objects = renderManifests(values);
    const pod = scrapePod(objects);
    expect(values.podSecurity.chromiumSandbox).toBe('seccomp-profile');
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'Localhost', localhostProfile: 'trawl-chromium.json' },
    });
    expect(pod.containers[0]?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(envOf(pod)).not.toHaveProperty('BROWSER_NO_SANDBOX');
    // Every other service keeps the runtime's default profile.
    for (const s of SERVICE_CATALOG.filter((x) => !x.chromium)) {
      const d = objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === `trawl-${s.name}`) as IDeployment;
      expect([s.name, d.spec?.template.spec?.securityContext?.seccompProfile]).toEqual([
        s.name,
        { type: 'RuntimeDefault' },
      ]);
    }
    expect(await validateManifests(objects, external(values))).toEqual([]);
  });

  it('turns the sandbox off only when the values say so, and says it in the env', async () => {
    const values = loadValues(root, [], [{ podSecurity: { chromiumSandbox: 'no-sandbox' } }]);
    const objects = renderManifests(values);
    const pod = scrapePod(objects);
    expect(pod.securityContext?.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    expect(envOf(pod)['BROWSER_NO_SANDBOX']).toBe('true');
    expect(await validateManifests(objects, external(values))).toEqual([]);
  });

  it('reports a Chromium pod under RuntimeDefault without the switch (its sandbox could not start)', async () => {
    const values = loadValues(root);
    const objects = renderManifests(values);
    const pod = scrapePod(objects);
    if (pod.securityContext) pod.securityContext.seccompProfile = { type: 'RuntimeDefault' };
    expect(await validateManifests(objects, external(values))).toEqual([
      "Deployment/trawl-extractor-scrape container extractor-scrape: Chromium's sandbox cannot start under seccomp RuntimeDefault",
    ]);
  });

  it('keeps the profile and the security context through kubectl kustomize (when kubectl is installed)', () => {
    try {
      execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    } catch {
      console.warn('kubectl is not installed: the kustomize check of the sandbox settings is skipped');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'trawl-kustomize-sandbox-'));
    try {
      writeFileSync(join(dir, 'trawl.yaml'), toYaml(renderManifests(loadValues(root))));
      writeFileSync(join(dir, 'kustomization.yaml'), 'resources:\n  - trawl.yaml\n');
      const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
      const objects = parseAllDocuments(out).map((d) => d.toJSON() as KubeObject);
      const pod = scrapePod(objects);
      expect(pod.securityContext?.seccompProfile).toEqual({
        type: 'Localhost',
        localhostProfile: 'trawl-chromium.json',
      });
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.containers[0]?.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(envOf(pod)).not.toHaveProperty('BROWSER_NO_SANDBOX');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
