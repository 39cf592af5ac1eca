/**
 * Fair sharing of delivery slots between webhook hosts, pure (no I/O): one lane per host (`host:port` of the URL).
 *
 * - a host has at most `perHost` deliveries in flight, and at most `perHostQueued` more waiting in its lane. What
 *   arrives beyond that waits (the reader stops) while the host keeps up, and is deferred (the caller hands it back to
 *   JetStream for later) once the host is slow: all its slots held for `slowAfterMs`, or failing;
 * - slots go round-robin between the lanes that may start something, so a host with thousands of outcomes does not
 *   hold up a host with ten;
 * - retries (attempt > 1) hold at most `retrySlots` of the slots, so hosts that keep failing do not take the slots of
 *   other hosts' first attempts;
 * - a circuit per host: after `circuitFailures` failures in a row (time-outs, network errors, 5xx) the host is
 *   backed off as a whole for `circuitOpenMs` (doubling while it keeps failing, at most 16 times): its waiting and
 *   arriving deliveries are deferred until then; then one delivery tries it (half-open).
 */
export interface HostLanesOptions {
  /** Deliveries in flight at once, all hosts together. */
  concurrency: number;
  /** Deliveries in flight at once to one host. */
  perHost: number;
  /** Deliveries waiting for a slot in one host's lane; more are deferred. */
  perHostQueued: number;
  /** Slots that retries may hold at once. */
  retrySlots: number;
  /** Failures in a row that open a host's circuit. */
  circuitFailures: number;
  /** First time a host's circuit stays open. */
  circuitOpenMs: number;
  /** A host whose slots have all been held this long is slow: what overflows its lane is deferred. */
  slowAfterMs: number;
  /** How long an outcome that overflows a slow host's lane is deferred. */
  slowDeferMs: number;
}

/** Whether an attempt's result counts against its host's circuit. */
export type HostVerdict = 'ok' | 'failed' | 'neutral';

interface Lane<T> {
  host: string;
  waiting: { item: T; retry: boolean }[];
  inFlight: number;
  failures: number;
  /** Until when the circuit is open (0: closed); after it, one delivery at a time until one succeeds. */
  openUntil: number;
  /** How many times in a row the circuit opened (the next opening lasts longer). */
  openings: number;
  /** Since when every slot of the host has been held (0: not all held). */
  fullSince: number;
}

/** What became of an outcome offered to its lane. */
export type LaneAdmission = { queued: true } | { queued: false; deferMs: number } | { queued: false; wait: true };

export class HostLanes<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Round-robin order of the hosts. */
  private order: string[] = [];
  private next = 0;
  private inFlight = 0;
  private retriesInFlight = 0;
  private queued = 0;

  constructor(private readonly options: HostLanesOptions) {}

  /**
   * Offers a delivery to its host's lane: `queued`; or `defer` for `deferMs` (its host's circuit is open, or its lane
   * is full and the host slow); or `wait` (its lane is full but the host keeps up: offer it again when a slot frees).
   */
  add(host: string, item: T, retry: boolean, now = Date.now()): LaneAdmission {
    const lane = this.lane(host);
    if (lane.openUntil > now) return { queued: false, deferMs: lane.openUntil - now };
    if (lane.waiting.length < this.options.perHostQueued) {
      lane.waiting.push({ item, retry });
      this.queued += 1;
      return { queued: true };
    }
    const slow = lane.failures > 0 || (lane.fullSince > 0 && now - lane.fullSince >= this.options.slowAfterMs);
    return slow ? { queued: false, deferMs: this.options.slowDeferMs } : { queued: false, wait: true };
  }

  /** The deliveries that may start now (each holds a slot until `done`), fairly between hosts. */
  take(now = Date.now()): { host: string; item: T; retry: boolean }[] {
    const started: { host: string; item: T; retry: boolean }[] = [];
    let idle = 0;
    while (this.inFlight < this.options.concurrency && this.order.length > 0 && idle < this.order.length) {
      this.next %= this.order.length;
      const lane = this.lanes.get(this.order[this.next]);
      this.next += 1;
      const head = lane?.waiting[0];
      if (!lane || !head || !this.mayStart(lane, head.retry, now)) {
        idle += 1;
        continue;
      }
      idle = 0;
      lane.waiting.shift();
      this.queued -= 1;
      lane.inFlight += 1;
      this.inFlight += 1;
      if (lane.inFlight >= this.options.perHost && lane.fullSince === 0) lane.fullSince = now;
      if (head.retry) this.retriesInFlight += 1;
      started.push({ host: lane.host, item: head.item, retry: head.retry });
    }
    return started;
  }

  /**
   * Frees the slot of a finished delivery and records its verdict. When this opens the host's circuit, answers the
   * waiting deliveries of the host (to defer, for `deferMs`).
   */
  done(host: string, retry: boolean, verdict: HostVerdict, now = Date.now()): { deferred: T[]; deferMs: number } {
    const lane = this.lane(host);
    lane.inFlight -= 1;
    this.inFlight -= 1;
    if (retry) this.retriesInFlight -= 1;
    if (lane.inFlight < this.options.perHost) lane.fullSince = 0;
    if (verdict === 'ok') {
      lane.failures = 0;
      lane.openings = 0;
      lane.openUntil = 0;
    } else if (verdict === 'failed') {
      lane.failures += 1;
      const halfOpen = lane.openings > 0;
      if (halfOpen || lane.failures >= this.options.circuitFailures) {
        const deferMs = this.options.circuitOpenMs * 2 ** Math.min(lane.openings, 4);
        lane.openings += 1;
        lane.openUntil = now + deferMs;
        const deferred = lane.waiting.map((w) => w.item);
        this.queued -= lane.waiting.length;
        lane.waiting = [];
        return { deferred, deferMs };
      }
    }
    this.forgetIdle(lane);
    return { deferred: [], deferMs: 0 };
  }

  /** Deliveries waiting in the lanes (not in flight). */
  get waiting(): number {
    return this.queued;
  }

  get active(): number {
    return this.inFlight;
  }

  /** Every waiting delivery (to keep their messages alive). */
  *waitingItems(): IterableIterator<T> {
    for (const lane of this.lanes.values()) for (const w of lane.waiting) yield w.item;
  }

  /** Whether `host`'s circuit is open now. */
  isOpen(host: string, now = Date.now()): boolean {
    return (this.lanes.get(host)?.openUntil ?? 0) > now;
  }

  private mayStart(lane: Lane<T>, retry: boolean, now: number): boolean {
    if (lane.openUntil > now) return false;
    // Half-open: one delivery tries the host.
    const cap = lane.openings > 0 ? 1 : this.options.perHost;
    if (lane.inFlight >= cap) return false;
    return !retry || this.retriesInFlight < this.options.retrySlots;
  }

  private lane(host: string): Lane<T> {
    let lane = this.lanes.get(host);
    if (!lane) {
      lane = { host, waiting: [], inFlight: 0, failures: 0, openUntil: 0, openings: 0, fullSince: 0 };
      this.lanes.set(host, lane);
      this.order.push(host);
    }
    return lane;
  }

  /** A lane with nothing waiting, nothing in flight and a closed circuit is dropped (hosts come and go). */
  private forgetIdle(lane: Lane<T>): void {
    if (lane.waiting.length > 0 || lane.inFlight > 0 || lane.openings > 0 || lane.failures > 0) return;
    this.lanes.delete(lane.host);
    this.order = this.order.filter((h) => h !== lane.host);
  }
}
