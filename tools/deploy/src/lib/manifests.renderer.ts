import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { ITriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { alertRules, type IPrometheusRule } from './alert-rules.builder.js';
import { natsAuthConfig, networkPolicies, redisAclTemplate } from './network-security.builder.js';
import {
  envSuffix,
  redisEnv,
  redisListTriggers,
  redisSecretData,
  redisTriggerAuthentication,
  redisUser,
} from './redis-connection.builder.js';
import {
  GATEWAY_PORT,
  METRICS_PORT,
  OPTIONAL_SECRET_KEYS,
  SERVICE_CATALOG,
  type ServiceSpec,
} from './service-catalog.constants.js';
import type { ServiceName, ServiceValues, TrawlValues } from './trawl-values.reader.js';

export type KubeObject =
  | IServiceAccount
  | IConfigMap
  | ISecret
  | IDeployment
  | IService
  | IPodDisruptionBudget
  | IHorizontalPodAutoscaler
  | IScaledObject
  | ITriggerAuthentication
  | INetworkPolicy
  | IPrometheusRule;

type Metadata = NonNullable<IDeployment['metadata']>;

function metadata(v: TrawlValues, name: string, component?: string): Metadata {
  return {
    name,
    ...(v.namespace ? { namespace: v.namespace } : {}),
    labels: {
      ...selectorLabels(v, component),
      'app.kubernetes.io/version': v.image.tag,
      'app.kubernetes.io/managed-by': 'trawl-deploy',
    },
  };
}

function selectorLabels(v: TrawlValues, component?: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'trawl',
    'app.kubernetes.io/instance': v.release,
    ...(component ? { 'app.kubernetes.io/component': component } : {}),
  };
}

const fullName = (v: TrawlValues, suffix: string): string => `${v.release}-${suffix}`;
const configMapName = (v: TrawlValues): string => fullName(v, 'config');
const serviceAccountName = (v: TrawlValues): string => v.release;

function configMap(v: TrawlValues): IConfigMap {
  const otel = v.config.otel ?? {};
  const data: Record<string, string> = {
    NATS_URL: v.config.natsUrl,
    LOG_LEVEL: v.config.logLevel,
    METRICS_PORT: String(METRICS_PORT),
    // The services bind loopback unless told (ADR 0021): in a pod they must answer on the pod's address.
    HOST: '0.0.0.0',
    OPS_HOST: '0.0.0.0',
    SSRF_ALLOW_HOSTS: v.config.ssrfAllowHosts ?? '',
  };
  if (v.nats.streamReplicas !== undefined) data['NATS_STREAM_REPLICAS'] = String(v.nats.streamReplicas);
  // No REDIS_URL here: only the services that use Redis get its address (container env), the extractors do not.
  if (otel.endpoint) data['OTEL_EXPORTER_OTLP_ENDPOINT'] = otel.endpoint;
  if (otel.tracesExporter) data['OTEL_TRACES_EXPORTER'] = otel.tracesExporter;
  if (otel.endpoint || otel.tracesExporter) {
    if (otel.sampler) data['OTEL_TRACES_SAMPLER'] = otel.sampler;
    if (otel.samplerArg) data['OTEL_TRACES_SAMPLER_ARG'] = otel.samplerArg;
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(v, configMapName(v)),
    data: { ...data, ...v.config.extraEnv },
  };
}

function secret(v: TrawlValues): ISecret {
  const s = v.secrets;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(v, s.name),
    type: 'Opaque',
    stringData: {
      API_KEYS: s.apiKeys ?? '',
      WEBHOOK_SIGNING_SECRET: s.webhookSigningSecret ?? '',
      ...(s.adminApiKey ? { ADMIN_API_KEY: s.adminApiKey } : {}),
      ...(s.proxyUrls ? { PROXY_URLS: s.proxyUrls } : {}),
      ...(s.llmApiKey ? { LLM_API_KEY: s.llmApiKey } : {}),
      ...redisSecretData(v),
      ...(s.keysEncryptionKey ? { KEYS_ENCRYPTION_KEY: s.keysEncryptionKey } : {}),
      ...Object.fromEntries(
        Object.entries(s.natsPasswords ?? {}).map(([name, pass]) => [
          `NATS_PASSWORD_${envSuffix(name as ServiceName)}`,
          pass,
        ]),
      ),
      ...(v.auth.redis && s.redisKedaPassword
        ? { REDIS_USERNAME_KEDA: redisUser(v, 'keda'), REDIS_PASSWORD_KEDA: s.redisKedaPassword }
        : {}),
    },
  };
}

function secretEnv(v: TrawlValues, key: string, optional: boolean, name = key): IEnvVar {
  return { name, valueFrom: { secretKeyRef: { name: v.secrets.name, key, ...(optional ? { optional: true } : {}) } } };
}

/**
 * NATS and Redis credentials: with `auth.nats`, the service's own NATS user (NATS_USER, NATS_PASSWORD from the
 * Secret key NATS_PASSWORD_<SERVICE>); Redis's address and credentials, for the values' topology, only for services
 * that use Redis (redis-connection.builder.ts).
 */
function connectionEnv(v: TrawlValues, spec: ServiceSpec): IEnvVar[] {
  const env: IEnvVar[] = [];
  if (v.auth.nats) {
    env.push(
      { name: 'NATS_USER', value: spec.name },
      secretEnv(v, `NATS_PASSWORD_${envSuffix(spec.name)}`, false, 'NATS_PASSWORD'),
    );
  }
  if (spec.redis) env.push(...redisEnv(v, spec.name));
  return env;
}

/**
 * The `json` and `summary` formats' endpoint (ADR 0029), for a service that calls it; nothing when `llm.baseUrl` is
 * empty (the service then refuses the two formats with 400). The key comes from the Secret (LLM_API_KEY, optional).
 */
function llmEnv(v: TrawlValues): IEnvVar[] {
  const llm = v.llm;
  if (!llm?.baseUrl) return [];
  return [
    { name: 'LLM_BASE_URL', value: llm.baseUrl },
    { name: 'LLM_MODEL', value: llm.model },
    ...(llm.timeoutMs !== undefined ? [{ name: 'LLM_TIMEOUT_MS', value: String(llm.timeoutMs) }] : []),
    ...(llm.maxInputChars !== undefined ? [{ name: 'LLM_MAX_INPUT_CHARS', value: String(llm.maxInputChars) }] : []),
  ];
}

/**
 * The keys' monthly language-model token budget (ADR 0040), for task-service, which keeps the counts; nothing without
 * an endpoint or with no cap (0, the service's default).
 */
function llmBudgetEnv(v: TrawlValues): IEnvVar[] {
  const budget = v.llm?.tokensPerKeyPerMonth;
  if (!v.llm?.baseUrl || !budget) return [];
  return [{ name: 'LLM_TOKENS_PER_KEY_PER_MONTH', value: String(budget) }];
}

/** How long the gateway waits on shutdown before closing its listener (endpoint removal is not instant). */
const PRE_STOP_SLEEP_SECONDS = 5;

function container(v: TrawlValues, spec: ServiceSpec, sv: ServiceValues): IContainer {
  const port =
    spec.kind === 'http'
      ? { name: 'http', containerPort: GATEWAY_PORT }
      : { name: 'metrics', containerPort: METRICS_PORT };
  const probePort = port.name;
  const env: IEnvVar[] = [{ name: 'TRAWL_SERVICE', value: spec.name }];
  if (spec.kind === 'http') env.push({ name: 'PORT', value: String(GATEWAY_PORT) });
  if (spec.chromium) env.push({ name: 'CHROMIUM_PATH', value: '/usr/bin/chromium' });
  // --no-sandbox only when the values say the cluster cannot give Chromium its sandbox (podSecurity.chromiumSandbox).
  if (spec.chromium && v.podSecurity.chromiumSandbox === 'no-sandbox')
    env.push({ name: 'BROWSER_NO_SANDBOX', value: 'true' });
  env.push({ name: 'INSTANCE_ID', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
  for (const key of spec.secretKeys) env.push(secretEnv(v, key, OPTIONAL_SECRET_KEYS.includes(key)));
  env.push(...connectionEnv(v, spec));
  if (spec.llm) env.push(...llmEnv(v));
  if (spec.llmBudget) env.push(...llmBudgetEnv(v));
  for (const [name, value] of Object.entries(sv.env ?? {})) env.push({ name, value });

  const mounts: IVolumeMount[] = [{ name: 'tmp', mountPath: '/tmp' }];
  if (spec.chromium) mounts.push({ name: 'dshm', mountPath: '/dev/shm' });

  return {
    name: spec.name,
    image: `${spec.chromium ? v.image.chromiumRepository : v.image.repository}:${v.image.tag}`,
    imagePullPolicy: v.image.pullPolicy,
    ports: [{ ...port, protocol: 'TCP' }],
    envFrom: [{ configMapRef: { name: configMapName(v) } }],
    env,
    resources: sv.resources,
    startupProbe: { httpGet: { path: '/health/live', port: probePort }, periodSeconds: 2, failureThreshold: 30 },
    livenessProbe: {
      httpGet: { path: '/health/live', port: probePort },
      periodSeconds: 10,
      timeoutSeconds: 3,
      failureThreshold: 3,
    },
    readinessProbe: {
      httpGet: { path: '/health/ready', port: probePort },
      periodSeconds: 5,
      timeoutSeconds: 3,
      failureThreshold: 2,
    },
    // The gateway keeps serving for a few seconds after it is told to stop, while its endpoint is taken out of the
    // Service and the load balancers (that happens in parallel with SIGTERM); then it closes and lets requests finish.
    ...(spec.kind === 'http'
      ? { lifecycle: { preStop: { exec: { command: ['sleep', String(PRE_STOP_SLEEP_SECONDS)] } } } }
      : {}),
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: mounts,
  };
}

function deployment(v: TrawlValues, spec: ServiceSpec, sv: ServiceValues): IDeployment {
  const volumes: IVolume[] = [{ name: 'tmp', emptyDir: { sizeLimit: '256Mi' } }];
  if (spec.chromium)
    volumes.push({ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: sv.shmSizeLimit ?? '1Gi' } });
  const metricsPort = spec.kind === 'http' ? GATEWAY_PORT : METRICS_PORT;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(v, fullName(v, spec.name), spec.name),
    spec: {
      // An autoscaler owns the replica count; setting it here would fight it on every apply.
      ...(sv.autoscaling.mode === 'none' ? { replicas: sv.replicas } : {}),
      revisionHistoryLimit: 5,
      selector: { matchLabels: selectorLabels(v, spec.name) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels: selectorLabels(v, spec.name),
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(metricsPort),
            'prometheus.io/path': '/metrics',
            ...sv.podAnnotations,
          },
        },
        spec: {
          serviceAccountName: serviceAccountName(v),
          automountServiceAccountToken: false,
          ...(v.image.pullSecrets?.length ? { imagePullSecrets: v.image.pullSecrets.map((name) => ({ name })) } : {}),
          securityContext: {
            runAsNonRoot: true,
            runAsUser: v.podSecurity.runAsUser,
            runAsGroup: v.podSecurity.runAsGroup,
            fsGroup: v.podSecurity.runAsGroup,
            seccompProfile: seccompProfileFor(v, spec),
          },
          terminationGracePeriodSeconds: sv.terminationGracePeriodSeconds ?? (spec.chromium ? 60 : 30),
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selectorLabels(v, spec.name) },
            },
          ],
          ...(sv.nodeSelector ? { nodeSelector: sv.nodeSelector } : {}),
          ...(sv.tolerations ? { tolerations: sv.tolerations } : {}),
          containers: [container(v, spec, sv)],
          volumes,
        },
      },
    },
  };
}

/**
 * The pod's seccomp profile: the runtime's default, but for Chromium's pod with its sandbox, the Localhost profile
 * that allows user namespaces (deploy/k8s/seccomp/trawl-chromium.json, tools/deploy's chromium-seccomp.builder.ts).
 */
function seccompProfileFor(
  v: TrawlValues,
  spec: ServiceSpec,
): { type: 'Localhost' | 'RuntimeDefault'; localhostProfile?: string } {
  if (spec.chromium && v.podSecurity.chromiumSandbox === 'seccomp-profile')
    return { type: 'Localhost', localhostProfile: v.podSecurity.chromiumSeccompProfile };
  return { type: 'RuntimeDefault' };
}

function service(v: TrawlValues, spec: ServiceSpec): IService {
  const port =
    spec.kind === 'http'
      ? { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' as const }
      : { name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' as const };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(v, fullName(v, spec.name), spec.name),
    spec: { type: 'ClusterIP', selector: selectorLabels(v, spec.name), ports: [port] },
  };
}

function podDisruptionBudget(v: TrawlValues, spec: ServiceSpec): IPodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: metadata(v, fullName(v, spec.name), spec.name),
    // maxUnavailable, not minAvailable: a single replica must not block node drains.
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(v, spec.name) } },
  };
}

function bounds(sv: ServiceValues): { min: number; max: number } {
  const min = sv.autoscaling.minReplicas ?? sv.replicas;
  return { min, max: Math.max(min, sv.autoscaling.maxReplicas ?? min) };
}

function hpa(v: TrawlValues, spec: ServiceSpec, sv: ServiceValues): IHorizontalPodAutoscaler {
  const { min, max } = bounds(sv);
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: metadata(v, fullName(v, spec.name), spec.name),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: fullName(v, spec.name) },
      minReplicas: min,
      maxReplicas: max,
      metrics: [
        {
          type: 'Resource',
          resource: {
            name: 'cpu',
            target: { type: 'Utilization', averageUtilization: sv.autoscaling.targetCPUUtilization ?? 70 },
          },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
    },
  };
}

const redisAuthName = (v: TrawlValues): string => fullName(v, 'redis-auth');

type Trigger = IScaledObject['spec']['triggers'][number];

/**
 * KEDA triggers: CPU always; BullMQ waiting lists (with the Redis topology's scaler), JetStream consumer lag and the
 * browser wait queue where they apply.
 */
export function kedaTriggers(v: TrawlValues, spec: ServiceSpec, sv: ServiceValues): Trigger[] {
  const perReplica = String(sv.autoscaling.queueLengthPerReplica ?? 20);
  const triggers: Trigger[] = [
    { type: 'cpu', metricType: 'Utilization', metadata: { value: String(sv.autoscaling.targetCPUUtilization ?? 70) } },
  ];
  const auth = redisTriggerAuthentication(v, metadata(v, redisAuthName(v))) ? redisAuthName(v) : undefined;
  for (const queue of spec.queues) triggers.push(...redisListTriggers(v, queue, perReplica, auth));
  if (spec.jetstream) {
    triggers.push({
      type: 'nats-jetstream',
      name: 'outcome-lag',
      metadata: {
        natsServerMonitoringEndpoint: v.nats.monitoringEndpoint,
        account: v.nats.account,
        stream: spec.jetstream.stream,
        consumer: spec.jetstream.consumer,
        lagThreshold: perReplica,
      },
    });
  }
  if (spec.chromium && v.keda.prometheusServerAddress) {
    triggers.push({
      type: 'prometheus',
      name: 'browser-wait-queue',
      metadata: {
        serverAddress: v.keda.prometheusServerAddress,
        query: `sum(trawl_browser_pool_wait_queue_length{service="${spec.name}"})`,
        threshold: perReplica,
      },
    });
  }
  return triggers;
}

function scaledObject(v: TrawlValues, spec: ServiceSpec, sv: ServiceValues): IScaledObject {
  const { min, max } = bounds(sv);
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: metadata(v, fullName(v, spec.name), spec.name),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: fullName(v, spec.name) },
      minReplicaCount: min,
      maxReplicaCount: max,
      pollingInterval: v.keda.pollingInterval ?? 15,
      cooldownPeriod: v.keda.cooldownPeriod ?? 120,
      advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 300 } } } },
      triggers: kedaTriggers(v, spec, sv),
    },
  };
}

/** Every object for these values, in apply order (config before workloads, autoscalers last). */
export function renderManifests(v: TrawlValues): KubeObject[] {
  const objects: KubeObject[] = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: metadata(v, serviceAccountName(v)),
      automountServiceAccountToken: false,
    },
    configMap(v),
  ];
  if (v.secrets.create) objects.push(secret(v));
  const enabled = SERVICE_CATALOG.filter((s) => v.services[s.name].enabled !== false);
  // For the NATS server and Redis, which are installed from their own charts: mount these there (docs/deploy.md).
  if (v.auth.nats) {
    objects.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: metadata(v, fullName(v, 'nats-auth')),
      data: { 'auth.conf': natsAuthConfig(v) },
    });
  }
  if (v.auth.redis) {
    objects.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: metadata(v, fullName(v, 'redis-acl')),
      data: { 'users.acl.template': redisAclTemplate(v) },
    });
  }
  objects.push(...networkPolicies(v, enabled));
  const usesKeda = v.keda.enabled && enabled.some((s) => v.services[s.name].autoscaling.mode === 'keda');
  const auth = usesKeda ? redisTriggerAuthentication(v, metadata(v, redisAuthName(v))) : undefined;
  if (auth) objects.push(auth);
  for (const spec of enabled) {
    const sv = v.services[spec.name];
    objects.push(deployment(v, spec, sv), service(v, spec), podDisruptionBudget(v, spec));
    // With KEDA switched off, a service that asked for it falls back to a CPU HPA.
    const mode = sv.autoscaling.mode === 'keda' && !v.keda.enabled ? 'hpa' : sv.autoscaling.mode;
    if (mode === 'hpa') objects.push(hpa(v, spec, sv));
    if (mode === 'keda') objects.push(scaledObject(v, spec, sv));
  }
  const rules = alertRules(v, { ...metadata(v, fullName(v, 'parser-drift')), name: fullName(v, 'parser-drift') });
  if (rules) objects.push(rules);
  return objects;
}
