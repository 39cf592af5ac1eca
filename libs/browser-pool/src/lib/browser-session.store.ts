import type { BrowserIdentities } from '@trawl/browser-identity';
import type { ResolvedPoolOptions, Session } from './browser-pool-state.types.js';
import type { RunOptions } from './browser-pool.types.js';

/** What a task's session is chosen by. */
export type SessionOptions = Pick<RunOptions, 'session' | 'hl' | 'gl' | 'location' | 'mobile' | 'proxyScope'>;

/**
 * The pool's sessions: who the browser is (an identity) and through which upstream proxy, per session key. A named
 * session (`RunOptions.session`) is the caller's; without one, the pool's own session for hl/gl (or location) and
 * mobile. A session lasts sessionMaxTasks tasks and sessionMaxAgeMs, then the next task opens a new one (new
 * identity, next proxy, drawn for the task's proxyScope); `retire` ends one early, and a blocked one rests its proxy
 * for its scope only (ADR 0027). When a session ends, `onEnded` lets the pool close its idle contexts.
 */
export class BrowserSessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly opening = new Map<string, Promise<Session>>();

  constructor(
    private readonly opts: Pick<ResolvedPoolOptions, 'sessionMaxTasks' | 'sessionMaxAgeMs' | 'upstreamProxies'>,
    private readonly identities: () => Promise<BrowserIdentities>,
    private readonly onEnded: (session: Session) => void,
  ) {}

  /** The task's session: the live one for its key, else a new one (identity drawn, next upstream proxy). */
  async sessionFor(options: SessionOptions): Promise<Session> {
    const { location, mobile } = options;
    const hl = location ? undefined : options.hl;
    const gl = location ? location.country?.toUpperCase() : options.gl;
    const variant = `${location ? `|loc:${location.languages?.join(',') ?? ''}` : ''}${mobile ? '|mobile' : ''}`;
    const key = options.session ?? `pool:${hl ?? ''}|${gl ?? ''}${variant}`;
    const live = this.sessions.get(key);
    if (live && live.tasks < this.opts.sessionMaxTasks && Date.now() - live.startedAt < this.opts.sessionMaxAgeMs)
      return live;
    const pending = this.opening.get(key);
    if (pending) return pending;
    const opening = (async () => {
      const identities = await this.identities();
      const proxyScope = options.proxyScope ?? '';
      const proxy = this.opts.upstreamProxies?.next(location?.country?.toUpperCase(), proxyScope || undefined);
      const lane = proxy ? await this.opts.upstreamProxies?.laneFor(proxy) : undefined;
      const fresh: Session = {
        key,
        named: options.session !== undefined,
        identity: identities.create({
          hl,
          gl,
          mobile,
          ...(location ? { languages: location.languages, geolocate: true } : {}),
        }),
        proxy,
        lane,
        proxyScope,
        tasks: 0,
        startedAt: Date.now(),
      };
      if (live) this.onEnded(live);
      this.sessions.set(key, fresh);
      return fresh;
    })().finally(() => this.opening.delete(key));
    this.opening.set(key, opening);
    return opening;
  }

  /** Whether `session` is still the live one of its key (a slot of an ended session is not kept). */
  isCurrent(session: Session): boolean {
    return this.sessions.get(session.key) === session;
  }

  /**
   * Ends the session `key`: its next task starts a new one. With `blocked`, its upstream proxy is set aside for its
   * cool-down too, for the session's `proxyScope` only.
   */
  retire(key: string, options: { blocked?: boolean } = {}): void {
    const s = this.sessions.get(key);
    if (!s) return;
    this.sessions.delete(key);
    if (options.blocked && s.proxy) this.opts.upstreamProxies?.markBlocked(s.proxy, s.proxyScope || undefined);
    this.onEnded(s);
  }
}
