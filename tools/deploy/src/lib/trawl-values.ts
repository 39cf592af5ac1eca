import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';

export const SERVICE_NAMES = [
  'gateway',
  'task-service',
  'webhook-dispatcher',
  'extractor-search',
  'extractor-maps',
  'extractor-retail',
  'extractor-scrape',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface ResourceValues {
  requests: { cpu: string; memory: string };
  limits?: { cpu?: string; memory?: string };
}

export interface ServiceValues {
  enabled?: boolean;
  replicas: number;
  autoscaling: {
    mode: 'none' | 'hpa' | 'keda';
    /** 0 lets KEDA scale the service to zero when its queues are empty (extractors; see docs/deploy.md). */
    minReplicas?: number;
    maxReplicas?: number;
    targetCPUUtilization?: number;
    queueLengthPerReplica?: number;
  };
  resources: ResourceValues;
  env?: Record<string, string>;
  podAnnotations?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  tolerations?: {
    key?: string;
    operator?: 'Exists' | 'Equal';
    value?: string;
    effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
    tolerationSeconds?: number;
  }[];
  shmSizeLimit?: string;
  terminationGracePeriodSeconds?: number;
}

/** Mirrors deploy/k8s/values.schema.json (the schema is what is enforced; this is what the renderer reads). */
export interface TrawlValues {
  release: string;
  namespace?: string;
  image: {
    repository: string;
    chromiumRepository: string;
    tag: string;
    pullPolicy: 'Always' | 'IfNotPresent' | 'Never';
    pullSecrets?: string[];
  };
  config: {
    natsUrl: string;
    redisUrl: string;
    logLevel: string;
    ssrfAllowHosts?: string;
    otel?: { endpoint?: string; tracesExporter?: string; sampler?: string; samplerArg?: string };
    extraEnv?: Record<string, string>;
  };
  secrets: {
    create: boolean;
    name: string;
    redisUrlFromSecret?: boolean;
    apiKeys?: string;
    webhookSigningSecret?: string;
    adminApiKey?: string;
    proxyUrls?: string;
    redisUrl?: string;
    /** Password of each service's NATS user (Secret keys NATS_PASSWORD_<SERVICE>), when create is true. */
    natsPasswords?: Partial<Record<ServiceName, string>>;
    /** REDIS_URL of each Redis-using service with its ACL user (Secret keys REDIS_URL_<SERVICE>). */
    redisUrls?: Partial<Record<ServiceName, string>>;
    keysEncryptionKey?: string;
    /** Password of the Redis user KEDA reads queue lengths with (Secret key REDIS_PASSWORD_KEDA). */
    redisKedaPassword?: string;
  };
  redis: { address: string; bullPrefix: string; passwordSecret?: { name?: string; key?: string } };
  nats: { monitoringEndpoint: string; account: string };
  keda: { enabled: boolean; pollingInterval?: number; cooldownPeriod?: number; prometheusServerAddress?: string };
  podSecurity: { runAsUser: number; runAsGroup: number };
  /** Per-service NATS users and Redis ACL users (see docs/deploy.md, "What a compromised browser can reach"). */
  auth: { nats: boolean; redis: boolean };
  networkPolicy: NetworkPolicyValues;
  alerts: { enabled: boolean; fieldPresenceDropRatio?: number; unrecognisedRiseFactor?: number; for?: string };
  services: Record<ServiceName, ServiceValues>;
}

/** Where a peer runs: a namespace (by name) and the labels of its pods. */
export interface PeerValues {
  namespace: string;
  podLabels: Record<string, string>;
  port: number;
}

export interface NetworkPolicyValues {
  enabled: boolean;
  dns: PeerValues;
  nats: PeerValues;
  redis: PeerValues;
  /** Namespace of the Prometheus that scrapes the metrics ports. */
  metricsNamespace: string;
  /** OpenTelemetry collector the services export traces to, when tracing is on. */
  otelCollector?: PeerValues;
  /** IPv4 and IPv6 ranges refused to internet-facing services on top of the built-in private and special ones. */
  extraDeniedCidrs?: string[];
}

/** Thrown when values do not match the schema; lists every problem with its path. */
export class ValuesError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid values:\n  ${problems.join('\n  ')}`);
    this.name = 'ValuesError';
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Helm-style merge: objects merge key by key, anything else (arrays included) is replaced by the later value. */
export function mergeValues(base: Json, override: Json): Json {
  if (!isObject(base) || !isObject(override)) return override === undefined ? base : override;
  const out: Record<string, Json> = { ...base };
  for (const [k, v] of Object.entries(override)) out[k] = k in base ? mergeValues(base[k] as Json, v) : v;
  return out;
}

export function k8sDir(repoRoot: string): string {
  return join(repoRoot, 'deploy', 'k8s');
}

/** Validates merged values against values.schema.json and returns them typed, or throws ValuesError. */
export function validateValues(values: unknown, repoRoot: string): TrawlValues {
  const schema = JSON.parse(readFileSync(join(k8sDir(repoRoot), 'values.schema.json'), 'utf8')) as object;
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  const validate = ajv.compile(schema);
  if (!validate(values)) {
    throw new ValuesError(
      (validate.errors ?? []).map((e) => {
        const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params['additionalProperty'])})` : '';
        return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${extra}`;
      }),
    );
  }
  return values as TrawlValues;
}

/**
 * deploy/k8s/values.yaml, then each override file in order (and inline overrides last), merged and validated.
 */
export function loadValues(repoRoot: string, files: string[] = [], inline: Json[] = []): TrawlValues {
  let merged = parse(readFileSync(join(k8sDir(repoRoot), 'values.yaml'), 'utf8')) as Json;
  for (const file of files) merged = mergeValues(merged, (parse(readFileSync(file, 'utf8')) as Json) ?? {});
  for (const o of inline) merged = mergeValues(merged, o);
  return validateValues(merged, repoRoot);
}

export type { Json };
