import { createHash } from 'node:crypto';
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { crawlDocumentSubject, STREAMS, SUBJECT_TABLE, type CrawlDocument } from '@trawl/contracts';

export interface CrawlDocumentsOptions {
  /** Most bytes the stream keeps (all crawls); the oldest documents go first. */
  maxBytes: number;
  /** How long a document is kept, ms. */
  maxAgeMs: number;
  /** Largest document, bytes (the NATS payload limit bounds it anyway). */
  maxDocumentBytes: number;
  /** De-duplication window: a document stored again within it (a retry after a crash) is stored once, ms. */
  duplicateWindowMs: number;
  replicas?: number;
}

/** One page of a crawl's documents and where the next starts (undefined: none stored after it yet). */
export interface DocumentsPage {
  documents: CrawlDocument[];
  /** Stream sequence to read from next. */
  next: number;
  /** Whether more documents are stored after this page now. */
  more: boolean;
}

/**
 * A crawl's documents in JetStream (ADR 0026): one stream for every crawl, a subject per crawl, bounded by bytes and
 * age; never the task Redis. A document's message id is the crawl and its document key, so storing it again after a
 * crash (within the duplicate window) keeps one copy. Pages are read back by direct get from a stream sequence on,
 * so a reader holds one page at a time, whatever the crawl's size.
 */
export class CrawlDocumentsStore {
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: CrawlDocumentsOptions,
  ) {}

  async ensureStream(): Promise<void> {
    const def = STREAMS.crawlDocuments;
    const config = {
      name: def.name,
      subjects: [...def.subjects],
      storage: StorageType.File,
      max_bytes: this.options.maxBytes,
      max_age: nanos(this.options.maxAgeMs),
      max_msg_size: this.options.maxDocumentBytes,
      duplicate_window: nanos(this.options.duplicateWindowMs),
      discard: DiscardPolicy.Old,
      allow_direct: true,
      num_replicas: this.options.replicas ?? 1,
    };
    try {
      const info = await this.jsm.streams.info(def.name);
      const c = info.config;
      if (c.max_bytes !== config.max_bytes || c.max_age !== config.max_age || !c.allow_direct) {
        await this.jsm.streams.update(def.name, { ...c, ...config });
      }
      return;
    } catch (e) {
      if (!(e instanceof JetStreamApiError) || e.code !== JetStreamApiCodes.StreamNotFound) throw e;
    }
    try {
      await this.jsm.streams.add(config);
    } catch (e) {
      // Another replica created it meanwhile.
      const exists = await this.jsm.streams.info(def.name).then(
        () => true,
        () => false,
      );
      if (!exists) throw e;
    }
  }

  /** Stores one document (once, however often a crashed worker's successor stores it again). */
  async put(crawlId: string, documentKey: string, document: CrawlDocument): Promise<void> {
    const msgID = `${crawlId}:${createHash('sha256').update(documentKey).digest('hex').slice(0, 32)}`;
    await this.js.publish(crawlDocumentSubject(crawlId), this.encoder.encode(JSON.stringify(document)), { msgID });
  }

  /** Documents of a crawl from stream sequence `from` on, up to `maxBytes` of them (at least one) or `maxCount`. */
  async page(crawlId: string, from: number, maxBytes: number, maxCount: number): Promise<DocumentsPage> {
    const subject = crawlDocumentSubject(crawlId);
    const documents: CrawlDocument[] = [];
    let bytes = 0;
    let next = Math.max(1, from);
    for (;;) {
      const m = await this.jsm.direct.getMessage(STREAMS.crawlDocuments.name, { seq: next, next_by_subj: subject });
      if (!m) return { documents, next, more: false };
      if (documents.length > 0 && (bytes + m.data.length > maxBytes || documents.length >= maxCount)) {
        return { documents, next, more: true };
      }
      documents.push(SUBJECT_TABLE.crawlDocument.payload.parse(m.json<unknown>()));
      bytes += m.data.length;
      next = m.seq + 1;
    }
  }

  /** Removes a crawl's documents (its record expired or it was deleted). */
  async purge(crawlId: string): Promise<void> {
    await this.jsm.streams.purge(STREAMS.crawlDocuments.name, { filter: crawlDocumentSubject(crawlId) });
  }
}
