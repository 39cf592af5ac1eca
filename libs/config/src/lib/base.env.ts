import { hostname } from 'node:os';
import { ArrayNotEmpty, IsArray, IsIn, IsInt, IsNotEmpty, IsString, Matches, Max, Min } from 'class-validator';
import { EnvList } from './env-value.transforms.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Where a listener binds unless configured (HOST, OPS_HOST): this machine only (ADR 0021). */
export const LOOPBACK_HOST = '127.0.0.1';

/** Variables every service reads. */
export class BaseEnv {
  /** NATS server URL(s), comma-separated. */
  @EnvList()
  @IsArray()
  @ArrayNotEmpty({ message: 'NATS_URL must be nats://host:port (several comma-separated)' })
  @Matches(/^(nats|tls|ws|wss):\/\/\S+$/, {
    each: true,
    message: 'NATS_URL must be nats://host:port (several comma-separated)',
  })
  NATS_URL: string[] = ['nats://127.0.0.1:4222'];

  /** NATS user of this service (deployments give each service its own, with subject permissions); empty: no auth. */
  @IsString()
  NATS_USER: string = '';

  /** Password of NATS_USER (from a Secret). */
  @IsString()
  NATS_PASSWORD: string = '';

  /**
   * Replicas of Trawl's JetStream streams (TASK_OUTCOMES, WEBHOOK_DEAD_LETTERS) and of their durable consumers, 1..5;
   * unset (0): 3 when the NATS cluster has 3 or more servers, else 1. Never more than the cluster has. Existing streams
   * and consumers are brought to it at start (an unset count only ever raises them).
   */
  @IsInt({ message: 'NATS_STREAM_REPLICAS must be an integer 1..5 (unset: follow the cluster)' })
  @Min(0, { message: 'NATS_STREAM_REPLICAS must be an integer 1..5 (unset: follow the cluster)' })
  @Max(5, { message: 'NATS_STREAM_REPLICAS must be an integer 1..5 (unset: follow the cluster)' })
  NATS_STREAM_REPLICAS: number = 0;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** Name of this instance in logs, NATS connection names, BullMQ workers and `edgeId`; defaults to hostname-pid. */
  @IsString()
  @Matches(/^\S+$/, { message: 'INSTANCE_ID must be a name without spaces (unset: hostname-pid)' })
  INSTANCE_ID: string = `${hostname()}-${process.pid}`;
}

/**
 * Variables of every service but the gateway (NATS services): the port of its ops server, and the SSRF allowlist of
 * what it fetches on a caller's behalf (pages for the extractors, webhook URLs for task-service and the dispatcher).
 */
export class NatsServiceEnv extends BaseEnv {
  /** Port of the ops server (`/metrics`, `/health/live`, `/health/ready`); 0 turns it off. */
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT: number = 9464;

  /**
   * Address the ops server binds (`/metrics`, readiness with its details, task-service's queue dashboard): loopback
   * unless configured; containers set `0.0.0.0` so the kubelet's probes and Prometheus reach it. ADR 0021.
   */
  @IsString()
  @IsNotEmpty()
  OPS_HOST: string = LOOPBACK_HOST;

  /**
   * Most NATS requests one replica handles at once; past it a request is answered SERVICE_UNAVAILABLE at once and its
   * caller sends it again to the queue group (another replica, within its deadline). 0: no cap. ADR 0027.
   */
  @IsInt()
  @Min(0)
  NATS_MAX_IN_FLIGHT: number = 256;

  /**
   * Hosts or CIDRs the SSRF guard lets through although they are not public (the simulator on 127.0.0.1, local sites
   * and webhooks of demos, tests), comma-separated.
   */
  @EnvList()
  @IsArray()
  @IsString({ each: true })
  SSRF_ALLOW_HOSTS: string[] = [];
}
