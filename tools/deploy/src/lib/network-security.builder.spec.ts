import { describe, expect, it } from '@jest/globals';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { IDEMPOTENCY_KEYS, inboxPrefixOf, PUBLISHED_OUTCOMES_KEY, SUBJECTS } from '@trawl/contracts';
import { PARSE_METRICS, type IPrometheusRule } from './alert-rules.builder.js';
import { DENIED_IPV4, DENIED_IPV6 } from './network-security.builder.js';
import { renderManifests, type KubeObject } from './manifests.renderer.js';
import { findRepoRoot } from './repo-root.util.js';
import { SERVICE_CATALOG } from './service-catalog.constants.js';
import { loadValues, type TrawlValues } from './trawl-values.reader.js';
import { validateManifests } from './manifests.validator.js';

const root = findRepoRoot(import.meta.dirname);
const external = (v: TrawlValues) => ({ externalSecrets: v.secrets.create ? [] : [v.secrets.name] });
const find = <K extends KubeObject['kind']>(objects: KubeObject[], kind: K, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata?.name === name) as Extract<KubeObject, { kind: K }> | undefined;
const EXTRACTORS = ['extractor-search', 'extractor-maps', 'extractor-retail', 'extractor-scrape'];
/** One Redis server (development): REDIS_URL, KEDA's plain redis scaler. */
const STANDALONE = { redis: { topology: 'standalone' } };

function policy(objects: KubeObject[], service: string): INetworkPolicy {
  const p = find(objects, 'NetworkPolicy', `trawl-${service}`) as INetworkPolicy | undefined;
  if (!p) throw new Error(`no NetworkPolicy for ${service}`);
  return p;
}

/** The namespaces a policy's egress rules reach by selector. */
function egressNamespaces(p: INetworkPolicy): string[] {
  return (p.spec?.egress ?? [])
    .flatMap((r) => (r.to ?? []).map((t) => t.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] ?? ''))
    .filter(Boolean);
}

function env(objects: KubeObject[], service: string): { name: string; value?: string; secretKey?: string }[] {
  const d = find(objects, 'Deployment', `trawl-${service}`);
  return (d?.spec?.template.spec?.containers[0]?.env ?? []).map((e) => ({
    name: e.name,
    ...(e.value !== undefined ? { value: e.value } : {}),
    ...(e.valueFrom?.secretKeyRef ? { secretKey: e.valueFrom.secretKeyRef.key } : {}),
  }));
}

describe('a compromised browser reaches nothing but the internet (rendered manifests)', () => {
  const values = loadValues(root);
  const objects = renderManifests(values);

  it('renders a default deny for every Trawl pod and one policy per service, and they validate', async () => {
    const deny = find(objects, 'NetworkPolicy', 'trawl-default-deny') as INetworkPolicy;
    expect(deny.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'trawl', 'app.kubernetes.io/instance': 'trawl' } },
      policyTypes: ['Ingress', 'Egress'],
    });
    for (const s of SERVICE_CATALOG) expect(policy(objects, s.name).spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(await validateManifests(objects, external(values))).toEqual([]);
  });

  it('lets extractors reach 0.0.0.0/0 and ::/0 except private, link-local, CGNAT and metadata ranges, and in the cluster only DNS and NATS', () => {
    for (const name of EXTRACTORS) {
      const p = policy(objects, name);
      const blocks = (p.spec?.egress ?? []).flatMap((r) => (r.to ?? []).flatMap((t) => (t.ipBlock ? [t.ipBlock] : [])));
      expect(blocks).toEqual([
        { cidr: '0.0.0.0/0', except: [...DENIED_IPV4] },
        { cidr: '::/0', except: [...DENIED_IPV6] },
      ]);
      expect(egressNamespaces(p)).toEqual(['kube-system', 'nats']);
      // Ingress only to the metrics port, only from Prometheus's namespace.
      expect(p.spec?.ingress).toEqual([
        {
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
          ports: [{ protocol: 'TCP', port: 9464 }],
        },
      ]);
    }
    for (const cidr of [
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '169.254.0.0/16',
      '100.64.0.0/10',
      '168.63.129.16/32',
      '127.0.0.0/8',
    ]) {
      expect(DENIED_IPV4).toContain(cidr);
    }
    for (const cidr of ['fc00::/7', 'fe80::/10', '::ffff:0:0/96', '::/96', '64:ff9b::/96', '2002::/16'])
      expect(DENIED_IPV6).toContain(cidr);
  });

  it('gives Redis egress only to gateway, task-service and webhook-dispatcher; internet only to extractors, the dispatcher and task-service (robots.txt, sitemaps, maps: ADR 0026)', () => {
    const reachesRedis = SERVICE_CATALOG.filter((s) => egressNamespaces(policy(objects, s.name)).includes('redis')).map(
      (s) => s.name,
    );
    expect(reachesRedis).toEqual(['gateway', 'task-service', 'webhook-dispatcher']);
    const reachesInternet = SERVICE_CATALOG.filter((s) =>
      (policy(objects, s.name).spec?.egress ?? []).some((r) => r.to?.some((t) => t.ipBlock)),
    ).map((s) => s.name);
    expect(reachesInternet).toEqual(['task-service', 'webhook-dispatcher', ...EXTRACTORS]);
    for (const s of SERVICE_CATALOG) expect(egressNamespaces(policy(objects, s.name))).toContain('nats');
  });

  it('lets extractor-scrape alone reach a model served inside the cluster (networkPolicy.llm), and only with llm set', () => {
    const peer = { namespace: 'models', podLabels: { app: 'vllm' }, port: 8000 };
    const llm = { baseUrl: 'http://vllm.models.svc.cluster.local:8000/v1', model: 'qwen3-8b' };
    const on = renderManifests(loadValues(root, [], [{ llm, networkPolicy: { llm: peer } }]));
    for (const s of SERVICE_CATALOG) {
      const rules = policy(on, s.name).spec?.egress ?? [];
      const toModels = rules.filter((r) =>
        r.to?.some((t) => t.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'models'),
      );
      expect(toModels).toEqual(
        s.name === 'extractor-scrape'
          ? [
              {
                to: [
                  {
                    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'models' } },
                    podSelector: { matchLabels: { app: 'vllm' } },
                  },
                ],
                ports: [{ protocol: 'TCP', port: 8000 }],
              },
            ]
          : [],
      );
    }
    // The peer without an endpoint opens nothing.
    const off = renderManifests(loadValues(root, [], [{ networkPolicy: { llm: peer } }]));
    expect(egressNamespaces(policy(off, 'extractor-scrape'))).toEqual(['kube-system', 'nats']);
  });

  it('gives extractor-scrape no Redis address and no Redis credentials, anywhere it reads its env from', () => {
    const config = find(objects, 'ConfigMap', 'trawl-config') as IConfigMap;
    expect(Object.keys(config.data ?? {})).not.toContain('REDIS_URL');
    for (const name of EXTRACTORS) {
      expect(env(objects, name).filter((e) => /REDIS/.test(e.name) || /REDIS/.test(e.secretKey ?? ''))).toEqual([]);
      expect(JSON.stringify(find(objects, 'Deployment', `trawl-${name}`))).not.toMatch(/redis/i);
    }
    // The Redis users: behind Sentinel (the default) their ACL user and its password; standalone their URL.
    const standalone = renderManifests(loadValues(root, [], [STANDALONE]));
    for (const name of ['gateway', 'task-service', 'webhook-dispatcher']) {
      const suffix = name.toUpperCase().replace(/-/g, '_');
      expect(env(objects, name)).toEqual(
        expect.arrayContaining([
          { name: 'REDIS_USERNAME', value: `trawl-${name}` },
          { name: 'REDIS_PASSWORD', secretKey: `REDIS_PASSWORD_${suffix}` },
        ]),
      );
      expect(env(standalone, name)).toContainEqual({ name: 'REDIS_URL', secretKey: `REDIS_URL_${suffix}` });
    }
    for (const name of EXTRACTORS)
      expect(env(standalone, name).filter((e) => /REDIS/.test(e.name) || /REDIS/.test(e.secretKey ?? ''))).toEqual([]);
  });

  it('connects every service to NATS as its own user, with a password from the Secret', () => {
    for (const s of SERVICE_CATALOG) {
      const e = env(objects, s.name);
      expect(e).toContainEqual({ name: 'NATS_USER', value: s.name });
      expect(e).toContainEqual({
        name: 'NATS_PASSWORD',
        secretKey: `NATS_PASSWORD_${s.name.toUpperCase().replace(/-/g, '_')}`,
      });
    }
  });

  it('renders the NATS authorization: each user only its subjects; extractor-scrape may not submit tasks nor call other extractors, only the token ledger', () => {
    const conf = (find(objects, 'ConfigMap', 'trawl-nats-auth') as IConfigMap).data?.['auth.conf'] ?? '';
    const block = (user: string) => conf.slice(conf.indexOf(`user: "${user}"`)).split('\n    }')[0] ?? '';
    const scrape = block('extractor-scrape');
    // What it asks: only task-service's token questions (ADR 0040: a key's budget before the model, the spend after).
    expect(scrape).toContain(`publish: { allow: ["${SUBJECTS.tokensUsage}", "${SUBJECTS.tokensRecord}"] }`);
    // It serves /scrape, the fleet's renders (ADR 0005) and crawl plans (ADR 0042), hears task-service's abandons
    // (ADR 0043); the extractors that ask for renders may only ask that (and, as every requester, its own reply inbox
    // only).
    expect(scrape).toContain(
      `subscribe: { allow: ["${SUBJECTS.scrapePage}", "${SUBJECTS.renderPage}", "${SUBJECTS.crawlPlan}", "${SUBJECTS.crawlPlanReady}", "${SUBJECTS.extractAbandon}", "${inboxPrefixOf('extractor-scrape')}.>"] }`,
    );
    expect(block('task-service')).toContain(`"${SUBJECTS.extractAbandon}"`);
    expect(block('gateway')).toContain(`"${SUBJECTS.extractAbandon}"`);
    expect(block('extractor-search')).not.toContain(SUBJECTS.extractAbandon);
    expect(block('extractor-search')).toContain(`publish: { allow: ["${SUBJECTS.renderPage}"] }`);
    expect(scrape).toContain('allow_responses: true');
    expect(scrape).not.toContain(SUBJECTS.taskSubmit);
    expect(block('gateway')).toContain(SUBJECTS.taskSubmit);
    expect(block('gateway')).not.toContain('allow_responses');
    for (const s of SERVICE_CATALOG)
      expect(conf).toContain(`password: $NATS_PASSWORD_${s.name.toUpperCase().replace(/-/g, '_')}`);
    expect(conf).not.toMatch(/password: "/);
  });

  it('renders Redis ACL users per service with key patterns, the default user off, a read-only KEDA user, none for extractors', () => {
    const acl = (find(objects, 'ConfigMap', 'trawl-redis-acl') as IConfigMap).data?.['users.acl.template'] ?? '';
    const users = acl
      .split('\n')
      .filter((l) => l.startsWith('user '))
      .map((l) => l.split(' ')[1]);
    // Behind Sentinel (the default) the replicas and the Sentinels have users of their own.
    expect(users).toEqual([
      'default',
      'trawl-gateway',
      'trawl-task-service',
      'trawl-webhook-dispatcher',
      'trawl-keda',
      'trawl-replication',
      'trawl-sentinel',
    ]);
    expect(acl).toContain('user default off');
    expect(acl).toMatch(/user trawl-gateway on >\$\{REDIS_PASSWORD_GATEWAY\} resetkeys ~trawl:apikey:\* /);
    expect(acl).toMatch(
      /user trawl-keda on .* ~bull:\*:wait ~bull:\*:prioritized resetchannels -@all \+eval \+evalsha \+type \+llen \+zcard \+ping/,
    );
    const auth = find(objects, 'TriggerAuthentication', 'trawl-redis-auth');
    expect(auth?.spec?.secretTargetRef?.map((r) => r.parameter)).toEqual(['username', 'password']);
  });

  it("narrows task-service's Redis user to its own keys (queues, idempotency records, outcome marks, crawls, batches, tokens) and no channel", () => {
    const acl = (find(objects, 'ConfigMap', 'trawl-redis-acl') as IConfigMap).data?.['users.acl.template'] ?? '';
    const line = acl.split('\n').find((l) => l.startsWith('user trawl-task-service ')) ?? '';
    const keyPatterns = line.split(' ').filter((w) => w.startsWith('~') || w.startsWith('%'));
    expect(keyPatterns).toEqual([
      '~bull:*',
      `~${IDEMPOTENCY_KEYS}*`,
      `~${PUBLISHED_OUTCOMES_KEY}`,
      // The crawls' keys (ADR 0026): one hash tag per crawl, the active set, the per-host budgets.
      '~trawl:{crawl:*',
      '~trawl:{crawls}:*',
      '~trawl:{host:*',
      // A Firecrawl-form batch's finished pages (ADR 0028): one hash tag per batch.
      '~trawl:{batch:*',
      // The keys' language-model tokens per month (ADR 0040).
      '~trawl:tokens:*',
    ]);
    expect(line).toContain(' resetchannels ');
    expect(line).not.toMatch(/allchannels|~trawl:\*/);
    // The gateway's keys (API keys, rate and in-flight counts) are not task-service's.
    expect(line).not.toContain('apikey');
  });

  it('wires the key that seals webhook secrets at rest (KEYS_ENCRYPTION_KEY) into the webhook dispatcher only', () => {
    expect(env(objects, 'webhook-dispatcher')).toContainEqual({
      name: 'KEYS_ENCRYPTION_KEY',
      secretKey: 'KEYS_ENCRYPTION_KEY',
    });
    for (const s of SERVICE_CATALOG.filter((x) => x.name !== 'webhook-dispatcher')) {
      expect(env(objects, s.name).map((e) => e.name)).not.toContain('KEYS_ENCRYPTION_KEY');
    }
  });

  it('puts every password into a rendered Secret when secrets.create is true', async () => {
    const v = loadValues(
      root,
      [],
      [
        STANDALONE,
        {
          secrets: {
            create: true,
            apiKeys: 'k',
            webhookSigningSecret: 'whsec_' + 'a'.repeat(32),
            natsPasswords: Object.fromEntries(SERVICE_CATALOG.map((s) => [s.name, `pw-${s.name}`])),
            redisUrls: {
              gateway: 'redis://trawl-gateway:p@r:6379',
              'task-service': 'redis://trawl-task-service:p@r:6379',
              'webhook-dispatcher': 'redis://trawl-webhook-dispatcher:p@r:6379',
            },
            redisKedaPassword: 'kp',
            keysEncryptionKey: 'A'.repeat(43) + '=',
          },
        },
      ],
    );
    const rendered = renderManifests(v);
    const secret = find(rendered, 'Secret', 'trawl-secrets');
    expect(Object.keys(secret?.stringData ?? {})).toEqual(
      expect.arrayContaining([
        'NATS_PASSWORD_EXTRACTOR_SCRAPE',
        'REDIS_URL_GATEWAY',
        'REDIS_USERNAME_KEDA',
        'REDIS_PASSWORD_KEDA',
        'KEYS_ENCRYPTION_KEY',
      ]),
    );
    expect(Object.keys(secret?.stringData ?? {})).not.toContain('REDIS_URL_EXTRACTOR_SCRAPE');
    expect(await validateManifests(rendered, external(v))).toEqual([]);

    // Behind Sentinel: each service's ACL password and the Sentinels' own password.
    const sentinel = loadValues(
      root,
      [],
      [
        {
          redis: { sentinelPassword: true },
          secrets: {
            create: true,
            apiKeys: 'k',
            webhookSigningSecret: 'whsec_' + 'a'.repeat(32),
            redisPasswords: { gateway: 'p', 'task-service': 'p', 'webhook-dispatcher': 'p' },
            redisSentinelPassword: 'sp',
            redisKedaPassword: 'kp',
          },
        },
      ],
    );
    const withSentinel = renderManifests(sentinel);
    const keys = Object.keys(find(withSentinel, 'Secret', 'trawl-secrets')?.stringData ?? {});
    expect(keys).toEqual(
      expect.arrayContaining(['REDIS_PASSWORD_GATEWAY', 'REDIS_PASSWORD_TASK_SERVICE', 'REDIS_SENTINEL_PASSWORD']),
    );
    expect(keys.filter((k) => k.startsWith('REDIS_URL'))).toEqual([]);
    expect(await validateManifests(withSentinel, external(sentinel))).toEqual([]);
  });

  it('renders no NetworkPolicy when networkPolicy.enabled is false, and no auth objects when auth is off', () => {
    const v = loadValues(
      root,
      [],
      [STANDALONE, { networkPolicy: { enabled: false }, auth: { nats: false, redis: false } }],
    );
    const rendered = renderManifests(v);
    expect(rendered.filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
    expect(find(rendered, 'ConfigMap', 'trawl-nats-auth')).toBeUndefined();
    expect(env(rendered, 'gateway')).toContainEqual({ name: 'REDIS_URL', value: v.config.redisUrl });
    expect(env(rendered, 'extractor-scrape').map((e) => e.name)).not.toContain('REDIS_URL');
  });
});

describe('extractors may scale to zero (KEDA)', () => {
  const zero = Object.fromEntries(EXTRACTORS.map((name) => [name, { autoscaling: { minReplicas: 0 } }]));

  it('renders minReplicaCount 0 with queue triggers that wake the extractor on one waiting job, and validates', async () => {
    const v = loadValues(root, [], [{ services: zero }]);
    const objects = renderManifests(v);
    for (const name of EXTRACTORS) {
      const so = find(objects, 'ScaledObject', `trawl-${name}`) as IScaledObject;
      expect(so.spec.minReplicaCount).toBe(0);
      const queues = so.spec.triggers.filter((t) => t.type.startsWith('redis'));
      expect(queues.length).toBeGreaterThan(0);
      for (const t of queues)
        expect(t.metadata).toMatchObject({
          activationListLength: '0',
          listName: expect.stringMatching(/^bull:\{[a-z-]+\}:trawl-.*:(wait|prioritized)$/),
        });
    }
    expect(await validateManifests(objects, external(v))).toEqual([]);
  });

  it('refuses to scale to zero what nothing can wake: an HPA, or a ScaledObject with only a CPU trigger', async () => {
    const v = loadValues(
      root,
      [],
      [{ services: { 'extractor-maps': { autoscaling: { mode: 'hpa', minReplicas: 0 } } } }],
    );
    const objects = renderManifests(v);
    const so = renderManifests(loadValues(root, [], [{ services: zero }])).find(
      (o) => o.kind === 'ScaledObject' && o.metadata?.name === 'trawl-extractor-retail',
    ) as IScaledObject;
    so.spec.triggers = so.spec.triggers.filter((t) => t.type === 'cpu');
    expect(
      await validateManifests(
        [...objects.filter((o) => o.kind !== 'ScaledObject' || o.metadata?.name !== 'trawl-extractor-retail'), so],
        external(v),
      ),
    ).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/HorizontalPodAutoscaler\/trawl-extractor-maps: an HPA cannot scale to zero/),
        expect.stringMatching(/ScaledObject\/trawl-extractor-retail: minReplicaCount 0 needs a queue or lag trigger/),
      ]),
    );
  });
});

describe('parser drift alerts (PrometheusRule)', () => {
  const objects = renderManifests(loadValues(root));
  const rule = find(objects, 'PrometheusRule', 'trawl-parser-drift') as IPrometheusRule;

  it("alerts on a drop in field presence and a rise in unrecognised pages, from the extractors' parse metrics", () => {
    const rules = rule.spec.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(['TrawlFieldPresenceDropped', 'TrawlUnrecognisedPagesRising']);
    expect(rules[0]?.expr).toContain(`rate(${PARSE_METRICS.fieldPresent}[1h])`);
    expect(rules[0]?.expr).toContain(`rate(${PARSE_METRICS.pages}[7d])`);
    expect(rules[1]?.expr).toContain(`sum by (upstream) (rate(${PARSE_METRICS.unrecognised}[30m]))`);
    expect(rules.every((r) => r.for === '15m')).toBe(true);
  });

  it('is checked by validateManifests (closed schema, balanced expressions)', async () => {
    const broken = structuredClone(rule);
    const first = broken.spec.groups[0]?.rules[0];
    if (!first) throw new Error('no rule');
    first.expr = 'sum(rate(x[5m])';
    (first as unknown as Record<string, unknown>)['severity'] = 'page';
    const problems = await validateManifests([broken]);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/must NOT have additional properties/),
        expect.stringMatching(/TrawlFieldPresenceDropped has unbalanced brackets/),
      ]),
    );
  });
});
