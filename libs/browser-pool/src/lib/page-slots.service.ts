import { TrawlError } from '@trawl/contracts';
import type { BrowserLauncher } from './browser-launcher.service.js';
import type { PoolCounters, PooledBrowser, ResolvedPoolOptions, Session, Slot } from './browser-pool-state.types.js';
import { newTaskState } from './browser-pool-state.types.js';
import type { PageTaskContext } from './browser-pool.types.js';
import { abandonReason } from './deadline-bound.util.js';
import { idleSlotFor } from './idle-slot.policy.js';
import type { PageSlotFactory, SlotOpening } from './page-slot.factory.js';
import { resetNetwork } from './settle-page.util.js';
import type { TabReset } from './tab-reset.service.js';

/**
 * The page slots of the pool's browsers and the tenants they serve: a task takes an idle slot of its session when one
 * is fit for its tenant (`idleSlotFor`, then TabReset's `readyFor`), else a new one (PageSlotFactory), other
 * sessions' idle slots beyond the page slots making room; runs in it under its deadline; and leaves it idle for reuse
 * when TabReset keeps it, else closed.
 */
export class PageSlots {
  constructor(
    private readonly opts: Pick<ResolvedPoolOptions, 'reuseContexts' | 'maxPagesPerBrowser'>,
    private readonly counters: Pick<PoolCounters, 'contextsReused'>,
    private readonly launcher: BrowserLauncher,
    private readonly factory: PageSlotFactory,
    private readonly tabs: TabReset,
  ) {}

  /** A slot of `pb` for a task of `session` and `tenant`: an idle one fit for it (not when `fresh`), else a new one. */
  async take(pb: PooledBrowser, session: Session, tenant: string | undefined, opening: SlotOpening): Promise<Slot> {
    const browser = await pb.ready;
    if (!opening.fresh && this.opts.reuseContexts) {
      const at = idleSlotFor(pb.idle, session, tenant);
      const reused = at >= 0 ? pb.idle.splice(at, 1)[0] : undefined;
      if (reused && (await this.tabs.readyFor(reused, tenant))) {
        if (reused.uses > 0) this.counters.contextsReused++; // 0: opened ahead by warmUp, first task
        reused.uses++;
        reused.task = newTaskState();
        return reused;
      }
      if (reused) void reused.context.close().catch(() => undefined);
    }
    // Other sessions' idle contexts beyond the page slots make room (oldest first).
    while (pb.idle.length > 0 && pb.active + pb.idle.length > this.opts.maxPagesPerBrowser) {
      void pb.idle
        .shift()
        ?.context.close()
        .catch(() => undefined);
    }
    return this.factory.open(browser, session, opening);
  }

  /** Opens `pb`'s page slots ahead for `session` (warmUp): idle, clean, their first task not counted as a reuse. */
  async warm(pb: PooledBrowser, session: Session): Promise<void> {
    const slots = await Promise.all(
      Array.from({ length: this.opts.maxPagesPerBrowser }, () => this.take(pb, session, undefined, { fresh: false })),
    );
    if (pb.dead || pb.closing) await Promise.all(slots.map((s) => s.context.close().catch(() => undefined)));
    else {
      for (const slot of slots) slot.uses = 0; // not reused yet: its first task counts as use 1
      pb.idle.push(...slots);
    }
  }

  /**
   * Runs `task` on the slot's page until its deadline: past it, or when the guard refuses the task's navigation or the
   * tab crashes, the task fails and its context is closed (which stops whatever it is still doing). The outcome waits
   * for the guard's checks of the task's requests.
   */
  async runTask<T>(
    pb: PooledBrowser,
    slot: Slot,
    task: (ctx: PageTaskContext) => Promise<T>,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const onAbandon = () => slot.task.abort?.(abandonReason(signal));
    const aborted = new Promise<never>((_, reject) => {
      slot.task.abort = (e) => {
        slot.task.abort = undefined;
        reject(e);
        void slot.context.close().catch(() => undefined); // stops whatever the task is still doing
      };
      timer = setTimeout(
        () => slot.task.abort?.(new TrawlError('UPSTREAM_TIMEOUT', 'the page did not finish before the deadline')),
        Math.max(1, deadline - Date.now()),
      );
    });
    if (signal?.aborted) onAbandon();
    else signal?.addEventListener('abort', onAbandon, { once: true });
    resetNetwork(slot.page);
    const running = task({
      page: slot.page,
      deadline,
      remainingMs: () => Math.max(1, deadline - Date.now()),
      session: slot.session.key,
      identity: slot.session.identity,
      adsBlocked: () => slot.task.adsBlocked,
    });
    running.catch(() => undefined);
    try {
      const result = await Promise.race([running, aborted]);
      await Promise.race([Promise.all(slot.task.checks), aborted]);
      if (slot.task.refused) throw slot.task.refused;
      if (pb.dead) throw new TrawlError('SERVICE_UNAVAILABLE', 'the browser crashed during the task');
      return result;
    } catch (e) {
      throw slot.task.refused ?? e;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbandon);
      slot.task.abort = undefined;
    }
  }

  /**
   * After a task: the slot is kept idle on its browser when the task ended well (`reusable`: and its session is still
   * the live one), its browser still takes tasks and TabReset keeps it; else its context is closed, within the
   * cleanup's bound.
   */
  async release(pb: PooledBrowser, slot: Slot, reusable: boolean, tenant: string | undefined): Promise<void> {
    if (reusable && !pb.dead && !pb.retired && (await this.tabs.keepAfter(slot, tenant))) pb.idle.push(slot);
    else await this.tabs.close(slot);
  }

  /** Closes the idle slots that match (those of an ended session). */
  dropIdle(matches: (slot: Slot) => boolean): void {
    for (const pb of this.launcher.all) {
      const drop = pb.idle.filter(matches);
      pb.idle = pb.idle.filter((slot) => !matches(slot));
      for (const slot of drop) void slot.context.close().catch(() => undefined);
    }
  }
}
