import { describe, expect, it } from '@jest/globals';
import { BrowserIdentities } from '@trawl/browser-identity';
import type { Session } from './browser-pool-state.types.js';
import type { UpstreamProxies } from './browser-pool.options.js';
import { BrowserSessionStore } from './browser-session.store.js';

// Sessions without a browser: which tasks share one, when one ends, and which upstream proxy it is given and rests.
// Their effect in a real browser (identity, proxy lanes) is covered by browser-pool-identity.spec.ts and
// browser-pool-proxy.spec.ts.

const IDENTITIES = new BrowserIdentities({ version: '131.0.6778.85' });

/** Upstream proxies that hand out p1, p2, … and record what they were asked. */
function recordingProxies() {
  const asked: { country?: string; scope?: string }[] = [];
  const blocked: { proxy: string; scope?: string }[] = [];
  const proxies: UpstreamProxies = {
    next: (country, scope) => {
      asked.push({ country, scope });
      return `http://p${asked.length}.example:8080`;
    },
    markBlocked: (proxy, scope) => void blocked.push({ proxy, scope }),
    laneFor: async (proxy) => `http://127.0.0.1:9/lane/${encodeURIComponent(proxy)}`,
  };
  return { proxies, asked, blocked };
}

function newStore(options: { sessionMaxTasks?: number; upstreamProxies?: UpstreamProxies } = {}) {
  const ended: Session[] = [];
  let identitiesAsked = 0;
  const store = new BrowserSessionStore(
    {
      sessionMaxTasks: options.sessionMaxTasks ?? 100,
      sessionMaxAgeMs: 60_000,
      upstreamProxies: options.upstreamProxies,
    },
    async () => {
      identitiesAsked++;
      return IDENTITIES;
    },
    (session) => void ended.push(session),
  );
  return { store, ended, identitiesAsked: () => identitiesAsked };
}

describe('BrowserSessionStore', () => {
  it('gives tasks of the same language, country and device one session, and others their own', async () => {
    const { store } = newStore();
    const de = await store.sessionFor({ hl: 'de', gl: 'DE' });
    expect(await store.sessionFor({ hl: 'de', gl: 'DE' })).toBe(de);
    expect(de.named).toBe(false);
    expect(de.identity.languages[0]).toBe('de-DE');
    const others = [
      await store.sessionFor({ hl: 'en', gl: 'US' }),
      await store.sessionFor({ hl: 'de', gl: 'DE', mobile: true }),
      await store.sessionFor({ location: { country: 'de', languages: ['de-DE'] } }),
      await store.sessionFor({ session: 'tenant-a' }),
    ];
    expect(new Set([de, ...others]).size).toBe(5);
    expect(others[3]?.named).toBe(true);
    expect(others[3]?.key).toBe('tenant-a');
  });

  it('opens one session for tasks that ask for the same key at once', async () => {
    const { proxies, asked } = recordingProxies();
    const { store, identitiesAsked } = newStore({ upstreamProxies: proxies });
    const [a, b, c] = await Promise.all([
      store.sessionFor({ session: 's' }),
      store.sessionFor({ session: 's' }),
      store.sessionFor({ session: 's' }),
    ]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(identitiesAsked()).toBe(1);
    expect(asked).toHaveLength(1);
  });

  it('replaces a session after sessionMaxTasks tasks, with the next proxy, and reports the old one ended', async () => {
    const { proxies } = recordingProxies();
    const { store, ended } = newStore({ sessionMaxTasks: 2, upstreamProxies: proxies });
    const first = await store.sessionFor({ session: 's' });
    first.tasks = 2; // the pool counts each task it runs in the session
    const second = await store.sessionFor({ session: 's' });
    expect(second).not.toBe(first);
    expect([first.proxy, second.proxy]).toEqual(['http://p1.example:8080', 'http://p2.example:8080']);
    expect(second.lane).toBe(`http://127.0.0.1:9/lane/${encodeURIComponent('http://p2.example:8080')}`);
    expect(ended).toEqual([first]);
    expect(store.isCurrent(first)).toBe(false);
    expect(store.isCurrent(second)).toBe(true);
  });

  it('draws the proxy for the task’s country and host, and a blocked retire rests it for that host only', async () => {
    const { proxies, asked, blocked } = recordingProxies();
    const { store, ended } = newStore({ upstreamProxies: proxies });
    const scoped = await store.sessionFor({ session: 'a', proxyScope: 'shop.example', location: { country: 'mx' } });
    const unscoped = await store.sessionFor({ session: 'b' });
    expect(asked).toEqual([
      { country: 'MX', scope: 'shop.example' },
      { country: undefined, scope: undefined },
    ]);
    store.retire('a', { blocked: true });
    store.retire('b', { blocked: true });
    expect(blocked).toEqual([
      { proxy: scoped.proxy, scope: 'shop.example' },
      { proxy: unscoped.proxy, scope: undefined },
    ]);
    expect(ended).toEqual([scoped, unscoped]);
    expect(store.isCurrent(scoped)).toBe(false);
  });

  it('retires without resting the proxy when not blocked, and ignores an unknown session', async () => {
    const { proxies, blocked } = recordingProxies();
    const { store, ended } = newStore({ upstreamProxies: proxies });
    const s = await store.sessionFor({ session: 's' });
    store.retire('s');
    store.retire('unknown', { blocked: true });
    expect(blocked).toEqual([]);
    expect(ended).toEqual([s]);
    const next = await store.sessionFor({ session: 's' });
    expect(next).not.toBe(s);
    expect(ended).toEqual([s]); // a retired session is not reported again when its key opens a new one
  });
});
