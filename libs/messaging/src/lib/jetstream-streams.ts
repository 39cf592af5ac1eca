import { JetStreamApiCodes, JetStreamApiError, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { STREAMS } from '@trawl/contracts';

export interface OutcomeStreamOptions {
  /** JetStream de-duplication window (a re-published outcome within it is not stored twice). */
  duplicateWindowMs: number;
  /** How long outcomes are kept. */
  maxAgeMs: number;
}

export const DEFAULT_OUTCOME_STREAM_OPTIONS: OutcomeStreamOptions = {
  duplicateWindowMs: 60 * 60 * 1000,
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
};

type StreamDef = { name: string; subjects: readonly string[] };

/** Creates a file-backed stream when it does not exist (an existing stream is left as it is). */
export async function ensureStream(
  jsm: JetStreamManager,
  def: StreamDef,
  options: OutcomeStreamOptions,
): Promise<void> {
  try {
    await jsm.streams.info(def.name);
    return;
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
    });
  } catch (e) {
    // Another replica created it in the meantime: fine.
    const exists = await jsm.streams.info(def.name).then(
      () => true,
      () => false,
    );
    if (!exists) throw e;
  }
}

/** The stream of final task outcomes (task.finished.v1). */
export function ensureOutcomeStream(
  jsm: JetStreamManager,
  options: OutcomeStreamOptions = DEFAULT_OUTCOME_STREAM_OPTIONS,
): Promise<void> {
  return ensureStream(jsm, STREAMS.taskOutcomes, options);
}
