import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { INetworkPolicyEgressRule } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyEgressRule';
import type { INetworkPolicyPeer } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyPeer';
import { prioritizedPattern, queueKeysPattern, waitListsPattern } from './queue-keys.util.js';
import { envSuffix, redisPorts, redisUser } from './redis-connection.builder.js';
import { GATEWAY_PORT, METRICS_PORT, SERVICE_CATALOG, type ServiceSpec } from './service-catalog.constants.js';
import type { PeerValues, TrawlValues } from './trawl-values.reader.js';

export { envSuffix, redisUser } from './redis-connection.builder.js';

/**
 * IPv4 ranges an internet-facing pod may not reach although they are inside 0.0.0.0/0: "this network", RFC 1918,
 * CGNAT (holds Alibaba's metadata 100.100.100.200), loopback, link-local (AWS/GCP/Azure/OCI metadata, ECS task
 * metadata), IETF protocol assignments, documentation, 6to4 relay, benchmarking, multicast, reserved and broadcast,
 * and Azure's wire server (a public address).
 */
export const DENIED_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '168.63.129.16/32',
] as const;

/**
 * IPv6 ranges denied inside ::/0: IPv4-compatible and unspecified/loopback (::/96), IPv4-mapped, NAT64 (both
 * prefixes), discard, Teredo, documentation, 6to4, unique-local (holds AWS's fd00:ec2::254 and GCP's fd20:ce::254),
 * site-local, link-local and multicast.
 */
export const DENIED_IPV6 = [
  '::/96',
  '::ffff:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/32',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fec0::/10',
  'fe80::/10',
  'ff00::/8',
] as const;

type Labels = Record<string, string>;

function trawlPods(v: TrawlValues, component?: string): Labels {
  return {
    'app.kubernetes.io/name': 'trawl',
    'app.kubernetes.io/instance': v.release,
    ...(component ? { 'app.kubernetes.io/component': component } : {}),
  };
}

function objectMeta(v: TrawlValues, name: string, component?: string): INetworkPolicy['metadata'] {
  return {
    name,
    ...(v.namespace ? { namespace: v.namespace } : {}),
    labels: {
      ...trawlPods(v, component),
      'app.kubernetes.io/version': v.image.tag,
      'app.kubernetes.io/managed-by': 'trawl-deploy',
    },
  };
}

function peer(p: PeerValues): INetworkPolicyPeer {
  return {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': p.namespace } },
    podSelector: { matchLabels: p.podLabels },
  };
}

function tcp(p: PeerValues): INetworkPolicyEgressRule {
  return { to: [peer(p)], ports: [{ protocol: 'TCP', port: p.port }] };
}

/**
 * Egress to Redis: the data port and every Sentinel's or cluster node's port, to the `redis` peer's pods, or to
 * `networkPolicy.redisCidrs` when Redis runs outside the Kubernetes cluster (a managed service).
 */
function redisEgress(v: TrawlValues): INetworkPolicyEgressRule {
  const np = v.networkPolicy;
  const ports = redisPorts(v).map((port) => ({ protocol: 'TCP' as const, port }));
  const to = np.redisCidrs?.length ? np.redisCidrs.map((cidr) => ({ ipBlock: { cidr } })) : [peer(np.redis)];
  return { to, ports };
}

/** Egress to public addresses only: everything minus the denied ranges (and the operator's extra ones), any port. */
export function internetEgress(v: TrawlValues): INetworkPolicyEgressRule {
  const extra = v.networkPolicy.extraDeniedCidrs ?? [];
  const v4 = [...DENIED_IPV4, ...extra.filter((c) => !c.includes(':'))];
  const v6 = [...DENIED_IPV6, ...extra.filter((c) => c.includes(':'))];
  return { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: v4 } }, { ipBlock: { cidr: '::/0', except: v6 } }] };
}

function servicePolicy(v: TrawlValues, spec: ServiceSpec): INetworkPolicy {
  const np = v.networkPolicy;
  const egress: INetworkPolicyEgressRule[] = [
    {
      to: [peer(np.dns)],
      ports: [
        { protocol: 'UDP', port: np.dns.port },
        { protocol: 'TCP', port: np.dns.port },
      ],
    },
    tcp(np.nats),
  ];
  if (spec.redis) egress.push(redisEgress(v));
  if (v.config.otel?.endpoint && np.otelCollector) egress.push(tcp(np.otelCollector));
  if (spec.internet) egress.push(internetEgress(v));
  // A model served inside the cluster (llm.baseUrl) is a private address the internet egress refuses: its own rule.
  if (spec.llm && v.llm?.baseUrl && np.llm) egress.push(tcp(np.llm));
  const metricsFrom = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': np.metricsNamespace } } };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: objectMeta(v, `${v.release}-${spec.name}`, spec.name),
    spec: {
      podSelector: { matchLabels: trawlPods(v, spec.name) },
      policyTypes: ['Ingress', 'Egress'],
      // The gateway's port (API, health, metrics) is open to any source (the ingress controller, load balancers);
      // the other services take connections on their metrics port from Prometheus only.
      ingress:
        spec.kind === 'http'
          ? [{ ports: [{ protocol: 'TCP', port: GATEWAY_PORT }] }]
          : [{ from: [metricsFrom], ports: [{ protocol: 'TCP', port: METRICS_PORT }] }],
      egress,
    },
  };
}

/**
 * The NetworkPolicies: one that denies all ingress and egress to every Trawl pod, then one per service allowing
 * what it needs (see values.yaml `networkPolicy`). Policies add up, so the default deny holds for anything not
 * allowed by the service's own.
 */
export function networkPolicies(v: TrawlValues, services: readonly ServiceSpec[] = SERVICE_CATALOG): INetworkPolicy[] {
  if (!v.networkPolicy.enabled) return [];
  const deny: INetworkPolicy = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: objectMeta(v, `${v.release}-default-deny`),
    spec: { podSelector: { matchLabels: trawlPods(v) }, policyTypes: ['Ingress', 'Egress'] },
  };
  return [deny, ...services.map((s) => servicePolicy(v, s))];
}

/**
 * The NATS server's `authorization` block: one user per service with the subjects it may publish and subscribe to
 * (from the service catalog, so from the wire contract), and `allow_responses` for the services that answer
 * requests. Passwords are NATS config variables (`$NATS_PASSWORD_<SERVICE>`), resolved from the NATS server's
 * environment: this text holds no secret and can live in a ConfigMap.
 */
export function natsAuthConfig(v: TrawlValues, services: readonly ServiceSpec[] = SERVICE_CATALOG): string {
  const list = (subjects: readonly string[]) => `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;
  const users = services.map((s) => {
    const serves = s.nats.answers;
    return [
      `    {`,
      `      user: ${JSON.stringify(s.name)}`,
      `      password: $NATS_PASSWORD_${envSuffix(s.name)}`,
      `      permissions: {`,
      `        publish: { allow: ${list(s.nats.publish)} }`,
      `        subscribe: { allow: ${list(s.nats.subscribe)} }`,
      ...(serves ? [`        allow_responses: true`] : []),
      `      }`,
      `    }`,
    ].join('\n');
  });
  return [
    `# Rendered by tools/deploy (${v.release}): one NATS user per Trawl service, allowed only its own subjects.`,
    "# Include it from the NATS server config and set each NATS_PASSWORD_<SERVICE> in the server's environment.",
    'authorization {',
    '  users = [',
    users.join('\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}

/** Commands every Redis-using service needs beyond its key patterns (connection names, BullMQ's version check). */
const REDIS_BASE_RULES = '+@all -@dangerous +info +client|setname +client|getname +client|id +ping';

/**
 * What a client needs beyond that per topology: behind Sentinel it checks it reached a master (ROLE); in a Cluster
 * it reads the slot map and the cluster's state (CLUSTER SLOTS/SHARDS/NODES/INFO) and follows ASK redirections.
 */
function topologyRules(v: TrawlValues): string {
  if (v.redis.topology === 'sentinel') return ' +role';
  if (v.redis.topology === 'cluster')
    return ' +cluster|slots +cluster|shards +cluster|nodes +cluster|info +cluster|myid +asking +readonly +readwrite';
  return '';
}

/**
 * Redis ACL file template (for `aclfile`, or `ACL SETUSER` lines): the default user off, one user per Redis-using
 * service with its key patterns (ServiceSpec.redisAcl) and no dangerous commands, a read-only KEDA user that
 * may only read BullMQ wait-list lengths, and with replicas a replication user (and a Sentinel user). `${REDIS_PASSWORD_<USER>}` placeholders are substituted at deploy time
 * (e.g. `envsubst`); the extractors have no user.
 */
export function redisAclTemplate(v: TrawlValues, services: readonly ServiceSpec[] = SERVICE_CATALOG): string {
  // No comment line: Redis refuses anything but `user` lines in an ACL file.
  const lines = ['user default off'];
  const queues = queueKeysPattern();
  const extra = topologyRules(v);
  for (const s of services.filter((x) => x.redis)) {
    lines.push(
      `user ${redisUser(v, s.name)} on >\${REDIS_PASSWORD_${envSuffix(s.name)}} resetkeys ${s.redisAcl?.(queues) ?? ''} ${REDIS_BASE_RULES}${extra}`.replace(
        / {2,}/g,
        ' ',
      ),
    );
  }
  lines.push(
    // KEDA's Redis scalers measure a key with one script (EVAL: TYPE, then LLEN for a list or ZCARD for a sorted
    // set). Redis checks EVAL's keys as read-write, so the patterns are `~`, not `%R~`; the commands a script may
    // call are this user's, all read-only, so KEDA still changes nothing.
    `user ${redisUser(v, 'keda')} on >\${REDIS_PASSWORD_KEDA} resetkeys ~${waitListsPattern()} ~${prioritizedPattern()} resetchannels -@all +eval +evalsha +type +llen +zcard +ping +info +hello +auth +client|setname +select${extra}`,
  );
  // With default off, the replicas (masteruser) and the Sentinels (sentinel auth-user) need users of their own: the
  // rules Redis documents for them ("ACL rules for Sentinel and Replicas").
  if (v.redis.topology !== 'standalone')
    lines.push(`user ${redisUser(v, 'replication')} on >\${REDIS_PASSWORD_REPLICATION} -@all +psync +replconf +ping`);
  if (v.redis.topology === 'sentinel')
    lines.push(
      `user ${redisUser(v, 'sentinel')} on >\${REDIS_PASSWORD_SENTINEL} allchannels -@all +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill`,
    );
  return lines.join('\n') + '\n';
}
