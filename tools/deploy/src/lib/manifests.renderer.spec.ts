import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { toYaml } from './manifests-yaml.serializer.js';
import { natsAuthConfig, redisAclTemplate } from './network-security.builder.js';
import { renderManifests, type KubeObject } from './manifests.renderer.js';
import { findRepoRoot } from './repo-root.util.js';
import { SERVICE_CATALOG } from './service-catalog.constants.js';
import { loadValues, ValuesError, type TrawlValues } from './trawl-values.reader.js';
import { validateManifests } from './manifests.validator.js';

const root = findRepoRoot(import.meta.dirname);
const k8s = join(root, 'deploy', 'k8s');
const VALUE_SETS: Record<string, string[]> = {
  defaults: [],
  dev: [join(k8s, 'values-dev.yaml')],
  production: [join(k8s, 'values-production.yaml')],
};

const external = (v: TrawlValues) => ({ externalSecrets: v.secrets.create ? [] : [v.secrets.name] });
const named = <K extends KubeObject['kind']>(objects: KubeObject[], kind: K, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata?.name === name) as Extract<KubeObject, { kind: K }> | undefined;

function deploymentOf(objects: KubeObject[], service: string): IDeployment {
  const d = named(objects, 'Deployment', `trawl-${service}`);
  if (!d) throw new Error(`no Deployment for ${service}`);
  return d;
}

describe('Kubernetes manifests', () => {
  it.each(Object.keys(VALUE_SETS))(
    'renders the %s values into objects that pass the Kubernetes and KEDA schemas and the cross-object checks',
    async (set) => {
      const values = loadValues(root, VALUE_SETS[set]);
      const objects = renderManifests(values);
      const problems = await validateManifests(objects, external(values));
      expect(problems).toEqual([]);
      for (const s of SERVICE_CATALOG) {
        for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget'] as const) {
          expect(named(objects, kind, `trawl-${s.name}`)).toBeDefined();
        }
      }
    },
  );

  it('has a Deployment for every service in apps/ that has a main.ts', () => {
    const apps = readdirSync(join(root, 'apps')).filter(
      (a) => !a.endsWith('-e2e') && existsSync(join(root, 'apps', a, 'src', 'main.ts')),
    );
    const objects = renderManifests(loadValues(root));
    expect(apps.length).toBeGreaterThan(0);
    for (const app of apps) expect(named(objects, 'Deployment', `trawl-${app}`)).toBeDefined();
  });

  it('scales the gateway on CPU (HPA) and the workers on queue depth (KEDA): BullMQ wait lists and JetStream lag', () => {
    const objects = renderManifests(loadValues(root));
    const hpa = named(objects, 'HorizontalPodAutoscaler', 'trawl-gateway');
    expect(hpa?.spec?.metrics?.[0]?.resource?.name).toBe('cpu');
    expect(named(objects, 'ScaledObject', 'trawl-gateway')).toBeUndefined();

    const triggers = (name: string) => (named(objects, 'ScaledObject', `trawl-${name}`) as IScaledObject).spec.triggers;
    expect(triggers('extractor-scrape')).toContainEqual(
      expect.objectContaining({
        type: 'redis-sentinel',
        metadata: expect.objectContaining({ listName: 'bull:{scrape}:trawl-scrape:wait', listLength: '5' }),
      }),
    );
    expect(
      triggers('task-service')
        .filter((t) => t.type === 'redis-sentinel')
        .map((t) => t.metadata['listName']),
    ).toContain('bull:{batch}:trawl-batch:wait');
    expect(triggers('webhook-dispatcher')).toContainEqual(
      expect.objectContaining({
        type: 'nats-jetstream',
        metadata: expect.objectContaining({ stream: 'TASK_OUTCOMES', consumer: 'webhook-dispatcher', account: '$G' }),
      }),
    );
    // The autoscaler owns the replica count.
    expect(deploymentOf(objects, 'extractor-scrape').spec?.replicas).toBeUndefined();
  });

  it('falls back to CPU HPAs and renders no KEDA object when KEDA is switched off', async () => {
    const values = loadValues(root, [], [{ keda: { enabled: false } }]);
    const objects = renderManifests(values);
    expect(objects.filter((o) => o.kind === 'ScaledObject' || o.kind === 'TriggerAuthentication')).toEqual([]);
    expect(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler')).toHaveLength(SERVICE_CATALOG.length);
    expect(await validateManifests(objects, external(values))).toEqual([]);
  });

  it('gives Chromium, its image and a memory-backed /dev/shm to extractor-scrape only', () => {
    const objects = renderManifests(loadValues(root));
    for (const s of SERVICE_CATALOG) {
      const pod = deploymentOf(objects, s.name).spec?.template.spec;
      const c = pod?.containers[0];
      const hasShm = (pod?.volumes ?? []).some((v) => v.emptyDir?.medium === 'Memory');
      expect([s.name, c?.image?.startsWith('trawl-chromium:'), hasShm]).toEqual([
        s.name,
        s.name === 'extractor-scrape',
        s.name === 'extractor-scrape',
      ]);
    }
  });

  it('runs every container non-root with a read-only root filesystem, probes on the ops port and resource requests', () => {
    const objects = renderManifests(loadValues(root));
    for (const s of SERVICE_CATALOG) {
      const pod = deploymentOf(objects, s.name).spec?.template.spec;
      const c = pod?.containers[0];
      const port = s.kind === 'http' ? 'http' : 'metrics';
      expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(c?.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(c?.livenessProbe?.httpGet).toEqual({ path: '/health/live', port });
      expect(c?.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port });
      expect(c?.resources?.requests).toEqual(
        expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
      );
    }
  });

  it('lets the gateway finish in-flight requests after its endpoint is withdrawn (preStop sleep) and no one else', () => {
    const objects = renderManifests(loadValues(root));
    for (const s of SERVICE_CATALOG) {
      const c = deploymentOf(objects, s.name).spec?.template.spec?.containers[0];
      if (s.kind === 'http') expect(c?.lifecycle?.preStop?.exec?.command).toEqual(['sleep', '5']);
      else expect(c?.lifecycle).toBeUndefined();
    }
  });

  it('takes secrets only where needed: API keys for the gateway, the admin key for task-service, the signing secret for the dispatcher', () => {
    const objects = renderManifests(loadValues(root, VALUE_SETS['production']));
    const secretKeys = (service: string) =>
      (deploymentOf(objects, service).spec?.template.spec?.containers[0]?.env ?? [])
        .filter((e) => e.valueFrom?.secretKeyRef)
        .map((e) => e.name);
    expect(secretKeys('gateway')).toEqual(['API_KEYS', 'NATS_PASSWORD', 'REDIS_SENTINEL_PASSWORD', 'REDIS_PASSWORD']);
    expect(secretKeys('task-service')).toEqual([
      'ADMIN_API_KEY',
      'NATS_PASSWORD',
      'REDIS_SENTINEL_PASSWORD',
      'REDIS_PASSWORD',
    ]);
    expect(secretKeys('webhook-dispatcher')).toEqual([
      'WEBHOOK_SIGNING_SECRET',
      'KEYS_ENCRYPTION_KEY',
      'NATS_PASSWORD',
      'REDIS_SENTINEL_PASSWORD',
      'REDIS_PASSWORD',
    ]);
    expect(secretKeys('extractor-maps')).toEqual(['PROXY_URLS', 'NATS_PASSWORD']);
    expect(secretKeys('extractor-scrape')).toEqual(['PROXY_URLS', 'LLM_API_KEY', 'NATS_PASSWORD']);
    // Redis's address and credentials go to the services that use it, never into the shared ConfigMap.
    expect(Object.keys(named(objects, 'ConfigMap', 'trawl-config')?.data ?? {}).filter((k) => /REDIS/.test(k))).toEqual(
      [],
    );
  });

  it("gives the json and summary formats' endpoint (llm) to extractor-scrape only, its key from the Secret, and the keys' token budget to task-service", async () => {
    const envOf = (objects: KubeObject[], service: string) =>
      deploymentOf(objects, service).spec?.template.spec?.containers[0]?.env ?? [];
    const llmNames = (objects: KubeObject[], service: string) =>
      envOf(objects, service)
        .map((e) => e.name)
        .filter((n) => n.startsWith('LLM_'));

    const off = renderManifests(loadValues(root));
    // Without an endpoint the service refuses the two formats; the optional key reference stays (an external Secret).
    expect(llmNames(off, 'extractor-scrape')).toEqual(['LLM_API_KEY']);
    expect(envOf(off, 'extractor-scrape').find((e) => e.name === 'LLM_API_KEY')?.valueFrom?.secretKeyRef).toEqual({
      name: 'trawl-secrets',
      key: 'LLM_API_KEY',
      optional: true,
    });

    const llm = {
      baseUrl: 'http://vllm.models.svc.cluster.local:8000/v1',
      model: 'qwen3-8b',
      timeoutMs: 30000,
      tokensPerKeyPerMonth: 2_000_000,
    };
    const values = loadValues(
      root,
      [],
      [
        {
          llm,
          secrets: {
            create: true,
            apiKeys: 'k',
            webhookSigningSecret: 'whsec_c2lnbmluZy1zZWNyZXQtdGVzdA==',
            llmApiKey: 'sk-test',
          },
        },
      ],
    );
    const on = renderManifests(values);
    expect(envOf(on, 'extractor-scrape').filter((e) => e.name.startsWith('LLM_') && e.value !== undefined)).toEqual([
      { name: 'LLM_BASE_URL', value: llm.baseUrl },
      { name: 'LLM_MODEL', value: 'qwen3-8b' },
      { name: 'LLM_TIMEOUT_MS', value: '30000' },
      { name: 'LLM_MAX_INPUT_CHARS', value: '100000' }, // values.yaml's default
    ]);
    // ADR 0040: task-service keeps the keys' token counts and applies the budget; the endpoint is not its.
    expect(envOf(on, 'task-service').filter((e) => e.name.startsWith('LLM_'))).toEqual([
      { name: 'LLM_TOKENS_PER_KEY_PER_MONTH', value: '2000000' },
    ]);
    expect(llmNames(off, 'task-service')).toEqual([]);
    for (const s of SERVICE_CATALOG.filter((x) => x.name !== 'extractor-scrape' && x.name !== 'task-service'))
      expect(llmNames(on, s.name)).toEqual([]);
    expect(Object.keys(named(on, 'ConfigMap', 'trawl-config')?.data ?? {}).filter((k) => k.startsWith('LLM_'))).toEqual(
      [],
    );
    expect(named(on, 'Secret', 'trawl-secrets')?.stringData?.['LLM_API_KEY']).toBe('sk-test');
    expect(await validateManifests(on, external(values))).toEqual([]);
  });

  it("makes every pod's listeners answer on the pod's address: HOST and OPS_HOST 0.0.0.0 (loopback is the default)", () => {
    for (const set of [undefined, VALUE_SETS['production']]) {
      const data = named(renderManifests(loadValues(root, set)), 'ConfigMap', 'trawl-config')?.data ?? {};
      expect(data).toMatchObject({ HOST: '0.0.0.0', OPS_HOST: '0.0.0.0' });
    }
  });

  it('keeps tracing off in the ConfigMap unless an OTLP endpoint is configured', () => {
    const off = named(renderManifests(loadValues(root)), 'ConfigMap', 'trawl-config')?.data ?? {};
    const on =
      named(renderManifests(loadValues(root, VALUE_SETS['production'])), 'ConfigMap', 'trawl-config')?.data ?? {};
    expect(Object.keys(off).filter((k) => k.startsWith('OTEL_'))).toEqual([]);
    expect(on).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: expect.stringMatching(/^http/),
      OTEL_TRACES_SAMPLER_ARG: '0.05',
    });
  });

  it('matches the committed deploy/nats/auth.conf and deploy/redis/users.acl.template (the default values)', () => {
    const values = loadValues(root);
    expect(readFileSync(join(root, 'deploy', 'nats', 'auth.conf'), 'utf8')).toBe(natsAuthConfig(values));
    expect(readFileSync(join(root, 'deploy', 'redis', 'users.acl.template'), 'utf8')).toBe(redisAclTemplate(values));
  });

  it('matches the committed deploy/k8s/trawl.yaml (re-render it after changing values.yaml or the renderer)', () => {
    const values = loadValues(root);
    const rendered = toYaml(
      renderManifests(values),
      `Rendered by tools/deploy for release "${values.release}", image tag ${values.image.tag}.`,
    );
    expect(readFileSync(join(k8s, 'trawl.yaml'), 'utf8')).toBe(rendered);
  });
});

describe('values validation (values.schema.json)', () => {
  it.each([
    [
      { services: { gateway: { replicass: 3 } } },
      /\/services\/gateway must NOT have additional properties \(replicass\)/,
    ],
    [{ config: { logLevel: 'verbose' } }, /\/config\/logLevel must be equal to one of the allowed values/],
    [{ services: { 'extractor-maps': { autoscaling: { minReplicas: -1 } } } }, /minReplicas must be >= 0/],
    [{ networkPolicy: { extraDeniedCidrs: ['10.0.0.0'] } }, /\/networkPolicy\/extraDeniedCidrs\/0 must match pattern/],
    [{ auth: { nats: 'yes' } }, /\/auth\/nats must be boolean/],
    [
      { secrets: { create: true, apiKeys: 'k', webhookSigningSecret: 'plain' } },
      /webhookSigningSecret must match pattern/,
    ],
    [{ image: { pullPolicy: 'Sometimes' } }, /\/image\/pullPolicy/],
    [{ secrets: { proxyUrls: 'socks5://proxy:1080' } }, /\/secrets\/proxyUrls must match pattern/],
    [
      { llm: { baseUrl: 'https://api.example.com/v1', model: '' } },
      /\/llm\/model must NOT have fewer than 1 characters/,
    ],
    [{ llm: { baseUrl: 'api.example.com', model: 'm' } }, /\/llm\/baseUrl must match pattern/],
    [{ servics: {} }, /must NOT have additional properties \(servics\)/],
  ])('rejects %j', (override, message) => {
    expect(() => loadValues(root, [], [override])).toThrow(ValuesError);
    expect(() => loadValues(root, [], [override])).toThrow(message);
  });
});

describe('validateManifests catches broken objects', () => {
  const values = loadValues(root);
  const fresh = () => renderManifests(values);

  it('reports a field of the wrong type against the Kubernetes schema', async () => {
    const objects = fresh();
    const port = deploymentOf(objects, 'gateway').spec?.template.spec?.containers[0]?.ports?.[0];
    (port as unknown as Record<string, unknown>)['containerPort'] = '8080';
    expect(await validateManifests(objects, external(values))).toEqual([
      expect.stringMatching(/^Deployment\/trawl-gateway: .*containerPort must be integer/),
    ]);
  });

  it('reports a misspelt KEDA scaler parameter', async () => {
    const objects = fresh();
    const so = named(objects, 'ScaledObject', 'trawl-extractor-maps') as IScaledObject;
    const redis = so.spec.triggers.find((t) => t.type.startsWith('redis'));
    if (!redis) throw new Error('no redis trigger');
    redis.metadata = { address: 'redis:6379', listname: 'bull:trawl-maps:wait' };
    const problems = await validateManifests(objects, external(values));
    expect(problems.some((p) => /ScaledObject\/trawl-extractor-maps: .*listName/.test(p))).toBe(true);
    expect(problems.some((p) => /additionalProperty":"listname"/.test(p))).toBe(true);
  });

  it('reports broken references and house-rule violations', async () => {
    const objects = fresh();
    const svc = named(objects, 'Service', 'trawl-extractor-retail');
    if (svc?.spec?.selector) svc.spec.selector['app.kubernetes.io/component'] = 'extractor-retial';
    const c = deploymentOf(objects, 'task-service').spec?.template.spec?.containers[0];
    if (c?.securityContext) c.securityContext.readOnlyRootFilesystem = false;
    const problems = await validateManifests(objects, { externalSecrets: [] });
    expect(problems).toEqual(
      expect.arrayContaining([
        'Service/trawl-extractor-retail: selector matches 0 Deployments, expected 1',
        'Deployment/trawl-task-service container task-service: root filesystem must be read-only',
        'Deployment/trawl-gateway container gateway: env API_KEYS reads unknown Secret trawl-secrets',
      ]),
    );
  });
});
