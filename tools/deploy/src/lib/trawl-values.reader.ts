import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { SERVICE_NAMES, type ServiceName } from '@trawl/contracts';
import { parse } from 'yaml';

/** The services are the wire contract's (SERVICE_NAMES in libs/contracts, beside the subject table). */
export { SERVICE_NAMES, type ServiceName };

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
    /** The `llm` endpoint's key (Secret key LLM_API_KEY, read by extractor-scrape). */
    llmApiKey?: string;
    redisUrl?: string;
    /** Password of each service's NATS user (Secret keys NATS_PASSWORD_<SERVICE>), when create is true. */
    natsPasswords?: Partial<Record<ServiceName, string>>;
    /** REDIS_URL of each Redis-using service with its ACL user (Secret keys REDIS_URL_<SERVICE>; standalone). */
    redisUrls?: Partial<Record<ServiceName, string>>;
    /** Password of each Redis-using service's ACL user (Secret keys REDIS_PASSWORD_<SERVICE>; sentinel, cluster). */
    redisPasswords?: Partial<Record<ServiceName, string>>;
    /** Shared Redis password without per-service users (Secret key REDIS_PASSWORD; sentinel, cluster). */
    redisPassword?: string;
    /** Password of the Sentinels themselves (Secret key REDIS_SENTINEL_PASSWORD). */
    redisSentinelPassword?: string;
    keysEncryptionKey?: string;
    /** Password of the Redis user KEDA reads queue lengths with (Secret key REDIS_PASSWORD_KEDA). */
    redisKedaPassword?: string;
  };
  /** The chat-completions endpoint of the `json` and `summary` formats (ADR 0029); empty baseUrl: none. */
  llm?: LlmValues;
  redis: RedisValues;
  nats: {
    monitoringEndpoint: string;
    account: string;
    /** NATS_STREAM_REPLICAS for the services (1..5); unset: they follow the cluster (3 from three servers, else 1). */
    streamReplicas?: number;
  };
  keda: { enabled: boolean; pollingInterval?: number; cooldownPeriod?: number; prometheusServerAddress?: string };
  podSecurity: {
    runAsUser: number;
    runAsGroup: number;
    /**
     * How extractor-scrape's Chromium gets its sandbox: `seccomp-profile` (a Localhost seccomp profile that allows
     * user namespaces, `chromiumSeccompProfile`, relative to the kubelet's seccomp directory) or `no-sandbox`
     * (RuntimeDefault and BROWSER_NO_SANDBOX=true).
     */
    chromiumSandbox: 'seccomp-profile' | 'no-sandbox';
    chromiumSeccompProfile: string;
  };
  /** Per-service NATS users and Redis ACL users (see docs/deploy.md, "What a compromised browser can reach"). */
  auth: { nats: boolean; redis: boolean };
  networkPolicy: NetworkPolicyValues;
  alerts: { enabled: boolean; fieldPresenceDropRatio?: number; unrecognisedRiseFactor?: number; for?: string };
  services: Record<ServiceName, ServiceValues>;
}

/**
 * How the services and KEDA reach Redis. `standalone` (development): REDIS_URL and `address`. `sentinel`: a master
 * with replicas watched by Sentinels (REDIS_SENTINELS, REDIS_SENTINEL_NAME). `cluster`: a Redis Cluster, in-cluster
 * or managed (REDIS_CLUSTER_NODES). docs/deploy.md, "Redis and NATS topologies".
 */
export type RedisTopology = 'standalone' | 'sentinel' | 'cluster';

export interface RedisValues {
  topology: RedisTopology;
  /** standalone: host:port KEDA reads the waiting lists at (the services use config.redisUrl). */
  address?: string;
  /** sentinel: every Sentinel, host:port. */
  sentinels?: string[];
  /** sentinel: the master set's name (REDIS_SENTINEL_NAME). */
  sentinelName?: string;
  /** sentinel: the Sentinels require a password (Secret key REDIS_SENTINEL_PASSWORD). */
  sentinelPassword?: boolean;
  /** cluster: seed nodes, host:port (a managed cluster's configuration endpoint is one). */
  clusterNodes?: string[];
  /** TLS to Redis (REDIS_TLS; KEDA enableTLS). */
  tls?: boolean;
  /** REDIS_MIN_REPLICAS_ACK: replicas that must confirm an accepted batch; unset: the services' default. */
  minReplicasAck?: number;
  /** REDIS_REPLICAS_ACK_TIMEOUT_MS. */
  replicasAckTimeoutMs?: number;
  passwordSecret?: { name?: string; key?: string };
}

/**
 * extractor-scrape's LLM_BASE_URL, LLM_MODEL, LLM_TIMEOUT_MS and LLM_MAX_INPUT_CHARS; task-service's
 * LLM_TOKENS_PER_KEY_PER_MONTH (ADR 0040).
 */
export interface LlmValues {
  baseUrl: string;
  model: string;
  timeoutMs?: number;
  maxInputChars?: number;
  tokensPerKeyPerMonth?: number;
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
  /** A model served inside the cluster (`llm.baseUrl`): egress to its pods for extractor-scrape. */
  llm?: PeerValues;
  /**
   * Redis outside the Kubernetes cluster (a managed Redis Cluster or Sentinel group): egress to these ranges on the
   * Redis ports instead of the `redis` peer's pods.
   */
  redisCidrs?: string[];
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
