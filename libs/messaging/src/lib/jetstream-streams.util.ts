import { JetStreamApiCodes, JetStreamApiError, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { STREAMS } from '@trawl/contracts';

export interface OutcomeStreamOptions {
  /** JetStream de-duplication window (a re-published outcome within it is not stored twice). */
  duplicateWindowMs: number;
  /** How long outcomes are kept. */
  maxAgeMs: number;
  /** Replica count the stream should have (see `streamReplicas`); unset: 1 on creation, an existing one untouched. */
  replicas?: StreamReplicas;
}

/** How many replicas a stream (and its consumers) should have. */
export interface StreamReplicas {
  count: number;
  /**
   * Set from configuration (`NATS_STREAM_REPLICAS`): an existing stream with more replicas is lowered to `count`.
   * Derived from the cluster: an existing stream is only ever raised (a cluster that has lost a node for now does not
   * shrink its streams at the next start).
   */
  explicit: boolean;
}

export const DEFAULT_OUTCOME_STREAM_OPTIONS: OutcomeStreamOptions = {
  duplicateWindowMs: 60 * 60 * 1000,
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
};

/** Most replicas JetStream allows a stream. */
const MAX_REPLICAS = 5;

/**
 * How many servers the connected NATS cluster has: the client URLs the server advertises (`connect_urls`, its own
 * among them), at least the servers configured; 1 for a server outside a cluster. With `no_advertise` on, only the
 * configured servers count: set `NATS_STREAM_REPLICAS` then.
 */
export function natsClusterSize(nc: NatsConnection, configuredServers: readonly string[] = []): number {
  const info = nc.info;
  if (!info?.cluster) return 1;
  const advertised = new Set(info.connect_urls ?? []).size;
  return Math.max(1, advertised, new Set(configuredServers).size);
}

/**
 * The replica count of Trawl's streams: `configured` (1..5, `NATS_STREAM_REPLICAS`) when set, else 3 on a cluster of 3
 * or more servers and 1 otherwise; never more than the cluster has.
 */
export function streamReplicas(
  nc: NatsConnection,
  configured: number | undefined,
  configuredServers: readonly string[] = [],
): StreamReplicas {
  const size = natsClusterSize(nc, configuredServers);
  if (configured !== undefined && configured > 0) {
    return { count: Math.max(1, Math.min(configured, size, MAX_REPLICAS)), explicit: true };
  }
  return { count: size >= 3 ? 3 : 1, explicit: false };
}

type StreamDef = { name: string; subjects: readonly string[] };

/** What ensureStream did. */
export type EnsureStreamResult = { action: 'created' | 'kept' } | { action: 'replicas'; from: number; to: number };

/**
 * Creates a file-backed stream when it does not exist, with `options.replicas`; brings an existing stream to that
 * replica count (raised always, lowered only when the count is explicit). Answers what it did.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  def: StreamDef,
  options: OutcomeStreamOptions,
): Promise<EnsureStreamResult> {
  const want = options.replicas;
  try {
    const info = await jsm.streams.info(def.name);
    const have = info.config.num_replicas || 1;
    if (!want || want.count === have || (want.count < have && !want.explicit)) return { action: 'kept' };
    await jsm.streams.update(def.name, { ...info.config, num_replicas: want.count });
    return { action: 'replicas', from: have, to: want.count };
  } catch (e) {
    if (!(e instanceof JetStreamApiError) || e.code !== JetStreamApiCodes.StreamNotFound) throw e;
  }
  try {
    await jsm.streams.add({
      name: def.name,
      subjects: [...def.subjects],
      storage: StorageType.File,
      duplicate_window: nanos(options.duplicateWindowMs),
      max_age: nanos(options.maxAgeMs),
      num_replicas: want?.count ?? 1,
    });
    return { action: 'created' };
  } catch (e) {
    // Another replica created it in the meantime: fine.
    const exists = await jsm.streams.info(def.name).then(
      () => true,
      () => false,
    );
    if (!exists) throw e;
    return { action: 'kept' };
  }
}

/** The stream of final task outcomes (task.finished.v1). */
export function ensureOutcomeStream(
  jsm: JetStreamManager,
  options: OutcomeStreamOptions = DEFAULT_OUTCOME_STREAM_OPTIONS,
): Promise<EnsureStreamResult> {
  return ensureStream(jsm, STREAMS.taskOutcomes, options);
}
