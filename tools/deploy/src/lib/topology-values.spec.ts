import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { QUEUES } from '@trawl/contracts';
import { parse, parseAllDocuments } from 'yaml';
import { toYaml } from './manifests-yaml.serializer.js';
import { prioritizedKey, waitListKey } from './queue-keys.util.js';
import { renderManifests, type KubeObject } from './manifests.renderer.js';
import { findRepoRoot } from './repo-root.util.js';
import { SERVICE_CATALOG } from './service-catalog.constants.js';
import { loadValues, ValuesError, type TrawlValues } from './trawl-values.reader.js';
import { validateManifests } from './manifests.validator.js';

/**
 * The Redis and NATS topologies of issue 15: each renders into manifests that validate, with the services' variables
 * and KEDA's scaler of its topology, a PodDisruptionBudget per service; and the Helm values for the NATS and Redis
 * charts (which CI cannot install) agree with what the Trawl values expect of them.
 */
const root = findRepoRoot(import.meta.dirname);
const k8s = join(root, 'deploy', 'k8s');
const TOPOLOGIES: Record<string, { files: string[]; topology: TrawlValues['redis']['topology']; scaler: string }> = {
  'standalone (values-dev, development)': {
    files: [join(k8s, 'values-dev.yaml')],
    topology: 'standalone',
    scaler: 'redis',
  },
  'sentinel (the defaults)': { files: [], topology: 'sentinel', scaler: 'redis-sentinel' },
  'sentinel (production)': {
    files: [join(k8s, 'values-production.yaml')],
    topology: 'sentinel',
    scaler: 'redis-sentinel',
  },
  'cluster (production, in Kubernetes)': {
    files: [join(k8s, 'values-production.yaml'), join(k8s, 'values-redis-cluster.yaml')],
    topology: 'cluster',
    scaler: 'redis-cluster',
  },
  'cluster (production, managed)': {
    files: [join(k8s, 'values-production.yaml'), join(k8s, 'values-redis-managed.yaml')],
    topology: 'cluster',
    scaler: 'redis-cluster',
  },
};
const REDIS_USERS = SERVICE_CATALOG.filter((s) => s.redis).map((s) => s.name);
const TOPOLOGY_VARIABLES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'];

const external = (v: TrawlValues) => ({ externalSecrets: v.secrets.create ? [] : [v.secrets.name] });
const named = <K extends KubeObject['kind']>(objects: KubeObject[], kind: K, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata?.name === name) as Extract<KubeObject, { kind: K }> | undefined;
const envOf = (objects: KubeObject[], service: string) =>
  named(objects, 'Deployment', `trawl-${service}`)?.spec?.template.spec?.containers[0]?.env ?? [];
const helmValues = (path: string) => parse(readFileSync(join(root, path), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('Redis and NATS topologies (issue 15)', () => {
  it.each(Object.keys(TOPOLOGIES))('%s: renders manifests that validate, a PDB per service', async (name) => {
    const t = TOPOLOGIES[name];
    if (!t) throw new Error(name);
    const values = loadValues(root, t.files);
    expect(values.redis.topology).toBe(t.topology);
    const objects = renderManifests(values);
    expect(await validateManifests(objects, external(values))).toEqual([]);
    for (const s of SERVICE_CATALOG) {
      const pdb = named(objects, 'PodDisruptionBudget', `trawl-${s.name}`);
      expect(pdb?.spec).toEqual({
        maxUnavailable: 1,
        selector: { matchLabels: named(objects, 'Deployment', `trawl-${s.name}`)?.spec?.selector.matchLabels },
      });
    }
  });

  it.each(Object.keys(TOPOLOGIES))(
    "%s: Redis's address only to the services that use Redis, by one topology's variables",
    (name) => {
      const t = TOPOLOGIES[name];
      if (!t) throw new Error(name);
      const objects = renderManifests(loadValues(root, t.files));
      const expected = { standalone: 'REDIS_URL', sentinel: 'REDIS_SENTINELS', cluster: 'REDIS_CLUSTER_NODES' }[
        t.topology
      ];
      for (const s of SERVICE_CATALOG) {
        const names = envOf(objects, s.name).map((e) => e.name);
        expect([s.name, names.filter((n) => TOPOLOGY_VARIABLES.includes(n))]).toEqual([
          s.name,
          s.redis ? [expected] : [],
        ]);
        if (!s.redis) expect(names.filter((n) => n.startsWith('REDIS'))).toEqual([]);
      }
    },
  );

  it.each(Object.keys(TOPOLOGIES))("%s: KEDA reads every queue's waiting list with the topology's scaler", (name) => {
    const t = TOPOLOGIES[name];
    if (!t) throw new Error(name);
    const values = loadValues(root, t.files);
    const objects = renderManifests(values);
    const lists = objects
      .filter((o): o is IScaledObject => o.kind === 'ScaledObject')
      .flatMap((o) => o.spec.triggers.filter((tr) => tr.type.startsWith('redis')));
    if (!values.keda.enabled) {
      expect(lists).toEqual([]);
      return;
    }
    expect(new Set(lists.map((tr) => tr.type))).toEqual(new Set([t.scaler]));
    expect(new Set(lists.map((tr) => tr.metadata['listName']))).toEqual(
      new Set(Object.values(QUEUES).flatMap((q) => [waitListKey(q), prioritizedKey(q)])),
    );
  });

  it('behind Sentinel: every Sentinel and the master set to the services and KEDA, and the Sentinel port open', () => {
    const values = loadValues(root, [join(k8s, 'values-production.yaml')]);
    const objects = renderManifests(values);
    const sentinels = values.redis.sentinels?.join(',');
    expect(values.redis.sentinels).toHaveLength(3);
    for (const service of REDIS_USERS) {
      expect(envOf(objects, service)).toEqual(
        expect.arrayContaining([
          { name: 'REDIS_SENTINELS', value: sentinels },
          { name: 'REDIS_SENTINEL_NAME', value: 'mymaster' },
          {
            name: 'REDIS_SENTINEL_PASSWORD',
            valueFrom: { secretKeyRef: { name: 'trawl-secrets', key: 'REDIS_SENTINEL_PASSWORD' } },
          },
          { name: 'REDIS_USERNAME', value: `trawl-${service}` },
          { name: 'REDIS_MIN_REPLICAS_ACK', value: '1' },
        ]),
      );
      const policy = named(objects, 'NetworkPolicy', `trawl-${service}`) as INetworkPolicy;
      const redisRule = policy.spec?.egress?.find((r) =>
        r.to?.some((p) => p.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'redis'),
      );
      expect(redisRule?.ports).toEqual([
        { protocol: 'TCP', port: 6379 },
        { protocol: 'TCP', port: 26379 },
      ]);
    }
    const scrape = named(objects, 'ScaledObject', 'trawl-extractor-scrape') as IScaledObject;
    expect(scrape.spec.triggers.find((tr) => tr.type === 'redis-sentinel')?.metadata).toEqual({
      addresses: sentinels,
      sentinelMaster: 'mymaster',
      listName: 'bull:{scrape}:trawl-scrape:wait',
      listLength: '5',
      activationListLength: '0',
    });
    // KEDA reads as its own user, and gives the Sentinels their password.
    expect(
      named(objects, 'TriggerAuthentication', 'trawl-redis-auth')?.spec?.secretTargetRef?.map((r) => r.parameter),
    ).toEqual(['username', 'password', 'sentinelPassword']);
  });

  it('on a managed Cluster: the seed node with TLS, for the services and KEDA, and egress to its subnet only', () => {
    const values = loadValues(root, [join(k8s, 'values-production.yaml'), join(k8s, 'values-redis-managed.yaml')]);
    const objects = renderManifests(values);
    for (const service of REDIS_USERS) {
      expect(envOf(objects, service)).toEqual(
        expect.arrayContaining([
          { name: 'REDIS_CLUSTER_NODES', value: 'clustercfg.trawl.example.cache.amazonaws.com:6379' },
          { name: 'REDIS_TLS', value: 'true' },
        ]),
      );
      const egress = (named(objects, 'NetworkPolicy', `trawl-${service}`) as INetworkPolicy).spec?.egress ?? [];
      expect(egress).toContainEqual({
        to: [{ ipBlock: { cidr: '10.40.0.0/16' } }],
        ports: [{ protocol: 'TCP', port: 6379 }],
      });
      expect(
        egress.some((r) =>
          r.to?.some((p) => p.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'redis'),
        ),
      ).toBe(false);
    }
    const scrape = named(objects, 'ScaledObject', 'trawl-extractor-scrape') as IScaledObject;
    expect(scrape.spec.triggers.find((tr) => tr.type === 'redis-cluster')?.metadata).toMatchObject({
      addresses: 'clustercfg.trawl.example.cache.amazonaws.com:6379',
      enableTLS: 'true',
    });
  });

  it('spreads NATS_URL over every node of the NATS cluster and sets the stream replicas, except for development', () => {
    const config = (files: string[]) => named(renderManifests(loadValues(root, files)), 'ConfigMap', 'trawl-config');
    const prod = config([join(k8s, 'values-production.yaml')])?.data ?? {};
    expect(prod['NATS_URL']?.split(',')).toHaveLength(3);
    expect(prod['NATS_STREAM_REPLICAS']).toBe('3');
    const dev = config([join(k8s, 'values-dev.yaml')])?.data ?? {};
    expect(dev['NATS_URL']?.split(',')).toHaveLength(1);
    expect(dev['NATS_STREAM_REPLICAS']).toBe('1');
  });

  it('keeps standalone Redis for development only: the defaults and production use Sentinel', () => {
    expect(loadValues(root).redis.topology).toBe('sentinel');
    expect(loadValues(root, [join(k8s, 'values-production.yaml')]).redis.topology).toBe('sentinel');
    expect(loadValues(root, [join(k8s, 'values-dev.yaml')]).redis.topology).toBe('standalone');
    expect(readFileSync(join(k8s, 'values.yaml'), 'utf8')).toMatch(/standalone +one Redis, for development only/);
  });

  it.each([
    [{ redis: { topology: 'sentinel', sentinels: [] } }, /\/redis\/sentinels must NOT have fewer than 1 items/],
    [{ redis: { topology: 'cluster' } }, /\/redis must have required property 'clusterNodes'/],
    [{ redis: { topology: 'cluster', clusterNodes: ['redis-0:6379,redis-1:6379'] } }, /clusterNodes\/0 must match/],
    [{ redis: { topology: 'replicated' } }, /\/redis\/topology must be equal to one of the allowed values/],
    [{ nats: { streamReplicas: 7 } }, /\/nats\/streamReplicas must be <= 5/],
  ])('rejects %j', (override, message) => {
    expect(() => loadValues(root, [], [override])).toThrow(ValuesError);
    expect(() => loadValues(root, [], [override])).toThrow(message);
  });

  it('catches a misspelt Sentinel scaler parameter', async () => {
    const values = loadValues(root);
    const objects = renderManifests(values);
    const so = named(objects, 'ScaledObject', 'trawl-extractor-maps') as IScaledObject;
    const trigger = so.spec.triggers.find((tr) => tr.type === 'redis-sentinel');
    if (!trigger) throw new Error('no redis-sentinel trigger');
    const { sentinelMaster, ...rest } = trigger.metadata;
    trigger.metadata = { ...rest, sentinelmaster: sentinelMaster ?? '' };
    const problems = await validateManifests(objects, external(values));
    expect(problems.some((p) => /trawl-extractor-maps: .*additionalProperty":"sentinelmaster"/.test(p))).toBe(true);
  });

  it('catches a Sentinel password given to a standalone Redis trigger (KEDA would ignore it)', async () => {
    const values = loadValues(root, [join(k8s, 'values-production.yaml')]);
    const objects = renderManifests(values);
    const so = named(objects, 'ScaledObject', 'trawl-extractor-maps') as IScaledObject;
    for (const trigger of so.spec.triggers.filter((tr) => tr.type === 'redis-sentinel')) trigger.type = 'redis';
    const problems = await validateManifests(objects, external(values));
    expect(problems).toContain(
      'ScaledObject/trawl-extractor-maps: trigger queue-trawl-maps (redis) takes no authentication parameter sentinelPassword',
    );
  });

  it('renders YAML that kubectl kustomize reads back, object for object (when kubectl is installed)', () => {
    let kubectl = true;
    try {
      execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    } catch {
      kubectl = false;
    }
    if (!kubectl) {
      console.warn('kubectl is not installed: the kustomize round trip is skipped');
      return;
    }
    for (const t of Object.values(TOPOLOGIES)) {
      const objects = renderManifests(loadValues(root, t.files));
      const dir = mkdtempSync(join(tmpdir(), 'trawl-kustomize-'));
      try {
        writeFileSync(join(dir, 'trawl.yaml'), toYaml(objects));
        writeFileSync(join(dir, 'kustomization.yaml'), 'resources:\n  - trawl.yaml\n');
        const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
        const ids = parseAllDocuments(out).map((d) => {
          const o = d.toJSON() as { kind: string; metadata: { name: string } };
          return `${o.kind}/${o.metadata.name}`;
        });
        expect(ids.sort()).toEqual(objects.map((o) => `${o.kind}/${o.metadata?.name ?? ''}`).sort());
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('the Helm values for NATS and Redis agree with the Trawl values', () => {
  const defaults = loadValues(root);

  it('NATS: a 3-node cluster with JetStream on a file store, 8 MB payloads, a PDB, one node per Kubernetes node', () => {
    const nats = helmValues('deploy/nats/values-cluster.yaml');
    expect(nats['config'].cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(nats['config'].jetstream).toMatchObject({
      enabled: true,
      fileStore: { enabled: true, pvc: { enabled: true } },
    });
    expect(nats['config'].merge.max_payload).toBe('<< 8MB >>');
    expect(nats['config'].monitor.enabled).toBe(true);
    expect(nats['podDisruptionBudget'].enabled).toBe(true);
    expect(nats['podTemplate'].topologySpreadConstraints['kubernetes.io/hostname']).toMatchObject({ maxSkew: 1 });
    // The Trawl values name every node of that release (nats-<i> behind nats-headless) and no more replicas.
    const replicas = nats['config'].cluster.replicas as number;
    expect(defaults.config.natsUrl.split(',')).toEqual(
      Array.from({ length: replicas }, (_, i) => `nats://nats-${i}.nats-headless.nats.svc.cluster.local:4222`),
    );
    expect(defaults.nats.monitoringEndpoint).toBe('nats-headless.nats.svc.cluster.local:8222');
    expect(defaults.nats.streamReplicas).toBeLessThanOrEqual(replicas);
  });

  it('Redis with Sentinel: 3 nodes, quorum 2, AOF and noeviction, a PDB; the Trawl values name its Sentinels', () => {
    const redis = helmValues('deploy/redis/values-sentinel.yaml');
    expect(redis['architecture']).toBe('replication');
    expect(redis['sentinel']).toMatchObject({ enabled: true, masterSet: defaults.redis.sentinelName, quorum: 2 });
    expect(redis['replica']).toMatchObject({ replicaCount: 3, pdb: { create: true } });
    expect(redis['commonConfiguration']).toMatch(/appendonly yes/);
    expect(redis['commonConfiguration']).toMatch(/maxmemory-policy noeviction/);
    expect(defaults.redis.sentinels).toEqual(
      Array.from({ length: 3 }, (_, i) => `redis-node-${i}.redis-headless.redis.svc.cluster.local:26379`),
    );
    // Accepted means on a replica: the master has replicaCount - 1 of them.
    expect(defaults.redis.minReplicasAck).toBeLessThanOrEqual((redis['replica'].replicaCount as number) - 1);
  });

  it('Redis Cluster: 3 masters with a replica each, AOF and noeviction, a PDB; the Trawl values name its nodes', () => {
    const redis = helmValues('deploy/redis/values-cluster.yaml');
    expect(redis['cluster']).toEqual({ nodes: 6, replicas: 1 });
    expect(redis['redis'].configmap).toMatch(/appendonly yes/);
    expect(redis['redis'].configmap).toMatch(/maxmemory-policy noeviction/);
    expect(redis['pdb']).toMatchObject({ create: true });
    const values = loadValues(root, [join(k8s, 'values-redis-cluster.yaml')]);
    for (const node of values.redis.clusterNodes ?? [])
      expect(node).toMatch(/^redis-cluster-[0-5]\.redis-cluster-headless\.redis\.svc\.cluster\.local:6379$/);
    expect(values.redis.minReplicasAck).toBeLessThanOrEqual(redis['cluster'].replicas as number);
  });
});
