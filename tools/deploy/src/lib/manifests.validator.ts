import { Ajv, type ValidateFunction } from 'ajv';
import type { KubeObject } from './manifests.renderer.js';

/**
 * KEDA's ScaledObject CRD types a trigger's `metadata` as a plain string map, so its schema (from
 * @kubernetes-models/keda) cannot catch a misspelt scaler parameter. These schemas are written from KEDA's scaler
 * documentation (cpu, redis lists on a standalone server, behind Sentinel and on a Cluster, nats-jetstream, prometheus;
 * KEDA 2.x) and close each parameter set.
 */
const INT = { type: 'string', pattern: '^[0-9]+$' };
const NUM = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const BOOL = { enum: ['true', 'false'] };
const HOST_PORT = { type: 'string', pattern: '^[^:/\\s]+:[0-9]{1,5}$' };
const HOST_PORT_LIST = { type: 'string', pattern: '^[^:/,\\s]+:[0-9]{1,5}(, ?[^:/,\\s]+:[0-9]{1,5})*$' };
export const KEDA_TRIGGER_METADATA_SCHEMAS: Record<string, object> = {
  cpu: {
    type: 'object',
    additionalProperties: false,
    required: ['value'],
    properties: { value: NUM, containerName: { type: 'string' } },
  },
  redis: {
    type: 'object',
    additionalProperties: false,
    required: ['listName'],
    anyOf: [{ required: ['address'] }, { required: ['addressFromEnv'] }, { required: ['host', 'port'] }],
    properties: {
      address: HOST_PORT,
      addressFromEnv: { type: 'string' },
      host: { type: 'string' },
      port: INT,
      usernameFromEnv: { type: 'string' },
      passwordFromEnv: { type: 'string' },
      listName: { type: 'string', minLength: 1 },
      listLength: INT,
      activationListLength: INT,
      databaseIndex: INT,
      enableTLS: BOOL,
      unsafeSsl: BOOL,
    },
  },
  'redis-sentinel': {
    type: 'object',
    additionalProperties: false,
    required: ['listName'],
    anyOf: [{ required: ['addresses'] }, { required: ['addressesFromEnv'] }, { required: ['hosts', 'ports'] }],
    properties: {
      addresses: HOST_PORT_LIST,
      addressesFromEnv: { type: 'string' },
      hosts: { type: 'string' },
      ports: { type: 'string' },
      usernameFromEnv: { type: 'string' },
      passwordFromEnv: { type: 'string' },
      sentinelUsernameFromEnv: { type: 'string' },
      sentinelPasswordFromEnv: { type: 'string' },
      sentinelMaster: { type: 'string', minLength: 1 },
      sentinelMasterFromEnv: { type: 'string' },
      listName: { type: 'string', minLength: 1 },
      listLength: INT,
      activationListLength: INT,
      databaseIndex: INT,
      enableTLS: BOOL,
      unsafeSsl: BOOL,
    },
  },
  'redis-cluster': {
    type: 'object',
    additionalProperties: false,
    required: ['listName'],
    anyOf: [{ required: ['addresses'] }, { required: ['addressesFromEnv'] }, { required: ['hosts', 'ports'] }],
    properties: {
      addresses: HOST_PORT_LIST,
      addressesFromEnv: { type: 'string' },
      hosts: { type: 'string' },
      ports: { type: 'string' },
      usernameFromEnv: { type: 'string' },
      passwordFromEnv: { type: 'string' },
      listName: { type: 'string', minLength: 1 },
      listLength: INT,
      activationListLength: INT,
      enableTLS: BOOL,
      unsafeSsl: BOOL,
    },
  },
  'nats-jetstream': {
    type: 'object',
    additionalProperties: false,
    required: ['natsServerMonitoringEndpoint', 'account', 'stream', 'consumer'],
    properties: {
      natsServerMonitoringEndpoint: HOST_PORT,
      account: { type: 'string', minLength: 1 },
      stream: { type: 'string', minLength: 1 },
      consumer: { type: 'string', minLength: 1 },
      lagThreshold: INT,
      activationLagThreshold: INT,
      useHttps: BOOL,
    },
  },
  prometheus: {
    type: 'object',
    additionalProperties: false,
    required: ['serverAddress', 'query', 'threshold'],
    properties: {
      serverAddress: { type: 'string', pattern: '^https?://\\S+$' },
      query: { type: 'string', minLength: 1 },
      threshold: NUM,
      activationThreshold: NUM,
      namespace: { type: 'string' },
      customHeaders: { type: 'string' },
      ignoreNullValues: BOOL,
      unsafeSsl: BOOL,
      queryParameters: { type: 'string' },
    },
  },
};

/**
 * The TriggerAuthentication parameters each scaler takes (KEDA's scaler documentation, "Authentication Parameters"),
 * for the scalers that use one: a parameter the trigger's scaler does not know is ignored by KEDA, silently.
 */
const REDIS_TLS_AUTH = ['tls', 'ca', 'cert', 'key', 'keyPassword'];
export const KEDA_AUTH_PARAMETERS: Record<string, readonly string[]> = {
  redis: ['address', 'host', 'port', 'username', 'password', ...REDIS_TLS_AUTH],
  'redis-sentinel': [
    ...['addresses', 'hosts', 'ports', 'username', 'password'],
    ...['sentinelUsername', 'sentinelPassword', 'sentinelMaster', ...REDIS_TLS_AUTH],
  ],
  'redis-cluster': ['addresses', 'hosts', 'ports', 'username', 'password', ...REDIS_TLS_AUTH],
};

/**
 * prometheus-operator's PrometheusRule, closed to the fields we render (there is no kubernetes-models package for
 * its CRDs here): groups of alerting rules with a PromQL expression, a `for` duration, labels and annotations.
 */
const PROMETHEUS_RULE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'monitoring.coreos.com/v1' },
    kind: { const: 'PrometheusRule' },
    metadata: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' } },
    },
    spec: {
      type: 'object',
      additionalProperties: false,
      required: ['groups'],
      properties: {
        groups: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'rules'],
            properties: {
              name: { type: 'string', minLength: 1 },
              rules: {
                type: 'array',
                minItems: 1,
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['alert', 'expr'],
                  properties: {
                    alert: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
                    expr: { type: 'string', minLength: 1 },
                    for: { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d|w|y)$' },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    annotations: { type: 'object', additionalProperties: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** Brackets and parentheses of a PromQL expression balance (a cheap syntax check; there is no promtool here). */
function balanced(expr: string): boolean {
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (const ch of expr) {
    if (ch === '(' || ch === '[' || ch === '{') stack.push(ch);
    else if (pairs[ch] && stack.pop() !== pairs[ch]) return false;
  }
  return stack.length === 0;
}

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: object) => Validatable;

/** The kubernetes-models (or @kubernetes-models/keda) class for an apiVersion/kind; its validate() is the schema. */
async function modelFor(apiVersion: string, kind: string): Promise<ModelClass> {
  const base = apiVersion.endsWith('keda.sh/v1alpha1')
    ? `@kubernetes-models/keda/${apiVersion}`
    : `kubernetes-models/${apiVersion}`;
  const mod = (await import(`${base}/${kind}`)) as Record<string, ModelClass>;
  const cls = mod[kind];
  if (!cls) throw new Error(`no schema for ${apiVersion} ${kind}`);
  return cls;
}

const id = (o: KubeObject): string => `${o.kind}/${o.metadata?.name ?? '?'}`;

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, val]) => labels?.[k] === val);
}

export interface ValidateOptions {
  /** A Secret that is referenced but not rendered (created outside these manifests). */
  externalSecrets?: string[];
}

/**
 * Checks rendered objects: each against its Kubernetes (or KEDA CRD) schema, KEDA trigger parameters against
 * KEDA_TRIGGER_METADATA_SCHEMAS, and the references between objects (selectors, ports, ConfigMaps, Secrets, volumes,
 * scale targets) plus the house rules (probes, resources, non-root, read-only root filesystem). Returns every
 * problem found; empty means valid.
 */
export async function validateManifests(objects: KubeObject[], options: ValidateOptions = {}): Promise<string[]> {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const o of objects) {
    if (seen.has(id(o))) problems.push(`${id(o)}: duplicate`);
    seen.add(id(o));
    if (o.kind === 'PrometheusRule') {
      const validateRule = new Ajv({ allErrors: true, strict: true }).compile(PROMETHEUS_RULE_SCHEMA);
      if (!validateRule(o))
        problems.push(...(validateRule.errors ?? []).map((e) => `${id(o)}${e.instancePath} ${e.message}`));
      for (const rule of o.spec.groups.flatMap((g) => g.rules)) {
        if (!balanced(rule.expr)) problems.push(`${id(o)}: alert ${rule.alert} has unbalanced brackets`);
      }
      continue;
    }
    try {
      const Model = await modelFor(o.apiVersion, o.kind);
      new Model(o).validate();
    } catch (e) {
      problems.push(`${id(o)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // strictRequired off: the redis schema's anyOf names required keys that are defined in the parent's properties.
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  const triggerValidators = new Map<string, ValidateFunction>(
    Object.entries(KEDA_TRIGGER_METADATA_SCHEMAS).map(([type, schema]) => [type, ajv.compile(schema)]),
  );

  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const configMaps = new Set(objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata?.name));
  const secrets = new Set([
    ...objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata?.name),
    ...(options.externalSecrets ?? []),
  ]);
  const authParameters = new Map(
    objects
      .filter((o) => o.kind === 'TriggerAuthentication')
      .map((o) => [o.metadata?.name, (o.spec?.secretTargetRef ?? []).map((r) => r.parameter)]),
  );
  const auths = new Set(authParameters.keys());
  const scaled = new Map<string, string[]>();

  for (const d of deployments) {
    const spec = d.spec;
    if (!spec) continue;
    const pod = spec.template.spec;
    if (!matches(spec.selector.matchLabels, spec.template.metadata?.labels))
      problems.push(`${id(d)}: selector does not match the pod labels`);
    if (!pod) {
      problems.push(`${id(d)}: no pod spec`);
      continue;
    }
    const volumes = new Set((pod.volumes ?? []).map((vol) => vol.name));
    for (const c of pod.containers) {
      const where = `${id(d)} container ${c.name}`;
      const ports = new Set((c.ports ?? []).map((p) => p.name));
      if (!c.resources?.requests?.['cpu'] || !c.resources.requests['memory'])
        problems.push(`${where}: needs cpu and memory requests`);
      for (const [probeName, probe] of [
        ['liveness', c.livenessProbe],
        ['readiness', c.readinessProbe],
      ] as const) {
        const port = probe?.httpGet?.port;
        if (!probe) problems.push(`${where}: no ${probeName} probe`);
        else if (typeof port === 'string' && !ports.has(port))
          problems.push(`${where}: ${probeName} probe port ${port} is not declared`);
      }
      if (!(c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot))
        problems.push(`${where}: must run as non-root`);
      if (c.securityContext?.allowPrivilegeEscalation !== false)
        problems.push(`${where}: allowPrivilegeEscalation must be false`);
      if (c.securityContext?.readOnlyRootFilesystem !== true)
        problems.push(`${where}: root filesystem must be read-only`);
      // Chromium's sandbox needs user namespaces, which RuntimeDefault refuses: a Localhost profile that allows them,
      // or the explicit switch that runs it without (issue 19, Medium 8).
      const env = new Map((c.env ?? []).map((e) => [e.name, e.value]));
      const seccomp = c.securityContext?.seccompProfile ?? pod.securityContext?.seccompProfile;
      if (env.has('CHROMIUM_PATH') && seccomp?.type !== 'Localhost' && env.get('BROWSER_NO_SANDBOX') !== 'true')
        problems.push(`${where}: Chromium's sandbox cannot start under seccomp ${seccomp?.type ?? 'Unconfined'}`);
      if (/:latest$|^[^:]+$/.test(c.image ?? '')) problems.push(`${where}: image needs a pinned tag`);
      for (const m of c.volumeMounts ?? [])
        if (!volumes.has(m.name)) problems.push(`${where}: mounts undeclared volume ${m.name}`);
      for (const ef of c.envFrom ?? []) {
        if (ef.configMapRef && !configMaps.has(ef.configMapRef.name))
          problems.push(`${where}: ConfigMap ${ef.configMapRef.name} is not rendered`);
        if (ef.secretRef && !secrets.has(ef.secretRef.name))
          problems.push(`${where}: Secret ${ef.secretRef.name} is unknown`);
      }
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && !secrets.has(ref.name)) problems.push(`${where}: env ${e.name} reads unknown Secret ${ref.name}`);
      }
    }
  }

  const deploymentNamed = (name: string | undefined) => deployments.find((d) => d.metadata?.name === name);
  for (const o of objects) {
    if (o.kind === 'Service') {
      const target = deployments.filter((d) => matches(o.spec?.selector, d.spec?.template.metadata?.labels));
      if (target.length !== 1) problems.push(`${id(o)}: selector matches ${target.length} Deployments, expected 1`);
      const declared = new Set(
        target.flatMap(
          (d) => d.spec?.template.spec?.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name)) ?? [],
        ),
      );
      for (const p of o.spec?.ports ?? []) {
        if (typeof p.targetPort === 'string' && !declared.has(p.targetPort))
          problems.push(`${id(o)}: targetPort ${p.targetPort} is not a container port`);
      }
    }
    if (o.kind === 'PodDisruptionBudget') {
      const n = deployments.filter((d) =>
        matches(o.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels),
      ).length;
      if (n !== 1) problems.push(`${id(o)}: selector matches ${n} Deployments, expected 1`);
    }
    if (o.kind === 'HorizontalPodAutoscaler' && (o.spec?.minReplicas ?? 1) < 1)
      problems.push(`${id(o)}: an HPA cannot scale to zero (use KEDA)`);
    if (o.kind === 'NetworkPolicy' && o.spec) {
      const n = deployments.filter((d) =>
        matches(o.spec?.podSelector?.matchLabels, d.spec?.template.metadata?.labels),
      ).length;
      if (n === 0) problems.push(`${id(o)}: selects no rendered Deployment`);
    }
    if (o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject') {
      const target = o.spec?.scaleTargetRef.name;
      const d = deploymentNamed(target);
      if (!d) problems.push(`${id(o)}: scale target ${target} is not a rendered Deployment`);
      else if (d.spec?.replicas !== undefined) problems.push(`${id(d)}: sets replicas although ${id(o)} scales it`);
      scaled.set(target ?? '', [...(scaled.get(target ?? '') ?? []), id(o)]);
    }
    if (o.kind === 'ScaledObject') {
      for (const t of o.spec.triggers) {
        const validate = triggerValidators.get(t.type);
        if (!validate) problems.push(`${id(o)}: trigger type ${t.type} has no schema here`);
        else if (!validate(t.metadata)) {
          problems.push(
            ...(validate.errors ?? []).map(
              (e) =>
                `${id(o)}: trigger ${t.name ?? t.type} metadata${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
            ),
          );
        }
        if (t.type === 'cpu' && t.metricType !== 'Utilization' && t.metricType !== 'AverageValue')
          problems.push(`${id(o)}: cpu trigger needs metricType`);
        if (t.authenticationRef && !auths.has(t.authenticationRef.name))
          problems.push(`${id(o)}: TriggerAuthentication ${t.authenticationRef.name} is not rendered`);
        const allowed = KEDA_AUTH_PARAMETERS[t.type];
        for (const parameter of (t.authenticationRef && authParameters.get(t.authenticationRef.name)) || []) {
          if (allowed && !allowed.includes(parameter))
            problems.push(
              `${id(o)}: trigger ${t.name ?? t.type} (${t.type}) takes no authentication parameter ${parameter}`,
            );
        }
      }
      // Scale to zero needs a trigger that can wake the service: KEDA cannot activate from CPU alone.
      if ((o.spec.minReplicaCount ?? 0) < 1 && !o.spec.triggers.some((t) => t.type !== 'cpu' && t.type !== 'memory')) {
        problems.push(`${id(o)}: minReplicaCount 0 needs a queue or lag trigger to wake the service`);
      }
    }
  }
  for (const [target, by] of scaled)
    if (by.length > 1) problems.push(`Deployment/${target}: scaled by ${by.join(' and ')}`);
  return problems;
}
