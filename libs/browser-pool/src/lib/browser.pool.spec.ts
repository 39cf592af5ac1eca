import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSocket } from 'node:dgram';
import { TrawlError } from '@trawl/contracts';
import { checkUrl, GuardProxy, parseAllowList, type Resolver } from '@trawl/safe-fetch';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { BrowserPool } from './browser.pool.js';
import type { BrowserPoolOptions } from './browser-pool.options.js';
import { resolveChromiumPath } from './chromium-path.resolver.js';

// Real Chromium against a site on 127.0.0.1 (allowlisted for these tests).
const allow = parseAllowList('127.0.0.1');
const guard = async (url: string) => {
  await checkUrl(url, { allow });
};

describe('BrowserPool (real Chromium)', () => {
  let site: LoopbackServer;
  const pools: BrowserPool[] = [];
  let releaseHang: () => void = () => undefined;
  let hang = new Promise<void>((r) => (releaseHang = r));

  const newPool = (options: Partial<BrowserPoolOptions> = {}) => {
    const pool = new BrowserPool({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), guard, ...options });
    pools.push(pool);
    return pool;
  };
  const soon = (ms = 20_000) => Date.now() + ms;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      const path = req.url ?? '/';
      if (path.startsWith('/set-cookie')) {
        res
          .writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=secret-a; Path=/' })
          .end('<p>cookie set</p>');
      } else if (path.startsWith('/with-image')) {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<p>pic</p><img src="/img.png"><script>document.title="ran"</script>');
      } else if (path === '/fetches-internal') {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<p>page</p><script>fetch('http://internal.test:${site.port}/sub-secret').then(() => (document.title = 'leaked'), () => (document.title = 'refused'))</script>`,
          );
      } else if (path.startsWith('/webrtc?port=')) {
        const port = Number(path.split('=')[1]);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<p>rtc</p><script>const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${port}' }] }); pc.createDataChannel('d'); pc.createOffer().then((o) => pc.setLocalDescription(o)); pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') document.title = 'gathered'; };</script>`,
          );
      } else if (path === '/script-via-redirect') {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<p>page</p><script src="/to-internal-host"></script><script>document.title = "ran"</script>');
      } else if (path === '/to-internal-host') {
        res.writeHead(302, { location: `http://internal.test:${site.port}/internal-host-secret` }).end();
      } else if (path === '/to-internal') {
        res.writeHead(302, { location: `${site.url}/internal-secret` }).end();
      } else if (path === '/hang') {
        await hang;
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>late</p>');
      } else if (path === '/never') {
        // never answers; closed with the server
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>t</title><p>${path}</p>`);
      }
    });
  });

  afterAll(async () => {
    releaseHang();
    await Promise.all(pools.map((p) => p.close()));
    await site?.close();
  });

  it('runs a task on a page and returns its result', async () => {
    const pool = newPool();
    const text = await pool.run(
      async ({ page, remainingMs }) => {
        await page.goto(`${site.url}/hello`, { timeout: remainingMs() });
        return page.textContent('p');
      },
      { deadline: soon() },
    );
    expect(text).toBe('/hello');
    expect(pool.stats()).toMatchObject({ browsers: 1, tasksCompleted: 1 });
  });

  it('does not carry cookies from one task to the next', async () => {
    const pool = newPool({ maxPagesPerBrowser: 1 });
    await pool.run(async ({ page }) => void (await page.goto(`${site.url}/set-cookie`)), { deadline: soon() });
    await pool.run(async ({ page }) => void (await page.goto(`${site.url}/after-cookie`)), { deadline: soon() });
    const after = site.requests.find((r) => r.url === '/after-cookie');
    expect(after?.headers.cookie).toBeUndefined();
  });

  it('does not carry localStorage or IndexedDB from one task to the next', async () => {
    const pool = newPool({ maxPagesPerBrowser: 1 });
    await pool.run(
      async ({ page }) => {
        await page.goto(`${site.url}/store`);
        await page.evaluate(() => localStorage.setItem('token', 'task-a-secret'));
      },
      { deadline: soon() },
    );
    await pool.run(
      async ({ page }) => {
        await page.goto(`${site.url}/store-idb`);
        await page.evaluate(
          () =>
            new Promise<void>((ok) => {
              const open = indexedDB.open('task-a-db');
              open.onsuccess = () => ok();
            }),
        );
      },
      { deadline: soon() },
    );
    const seen = await pool.run(
      async ({ page }) => {
        await page.goto(`${site.url}/after-store`);
        return page.evaluate(async () => ({ local: localStorage.length, dbs: (await indexedDB.databases()).length }));
      },
      { deadline: soon() },
    );
    expect(seen).toEqual({ local: 0, dbs: 0 });
  });

  it('reuses a context that a task left clean', async () => {
    const pool = newPool({ maxPagesPerBrowser: 1 });
    for (const n of [1, 2, 3]) {
      await pool.run(async ({ page }) => void (await page.goto(`${site.url}/clean-${n}`)), { deadline: soon() });
    }
    await pool.run(async () => undefined, { deadline: soon() }); // waits for the previous release
    expect(pool.stats().contextsReused).toBeGreaterThanOrEqual(2);
  });

  it('warmUp opens one clean context per page ahead, and the first tasks run in them', async () => {
    const pool = newPool({ maxPagesPerBrowser: 2 });
    await pool.warmUp();
    expect(pool.stats()).toMatchObject({ browsers: 1, idleContexts: 2 });
    const seen = await pool.run(
      async ({ page }) => {
        await page.goto(`${site.url}/warm`);
        return { text: await page.textContent('p'), contexts: page.context().browser()?.contexts().length };
      },
      { deadline: soon() },
    );
    // The task ran in one of the two contexts opened ahead: no third one was opened for it.
    expect(seen).toEqual({ text: '/warm', contexts: 2 });
    expect(pool.stats().contextsReused).toBe(0);
  });

  it('sends the task headers with its requests and not with the next task', async () => {
    const pool = newPool({ maxPagesPerBrowser: 1 });
    await pool.run(async ({ page }) => void (await page.goto(`${site.url}/h1`)), {
      deadline: soon(),
      headers: { 'x-probe': 'one' },
    });
    await pool.run(async ({ page }) => void (await page.goto(`${site.url}/h2`)), { deadline: soon() });
    expect(site.requests.find((r) => r.url === '/h1')?.headers['x-probe']).toBe('one');
    expect(site.requests.find((r) => r.url === '/h2')?.headers['x-probe']).toBeUndefined();
  });

  it('blocks images but runs scripts', async () => {
    const pool = newPool();
    const title = await pool.run(
      async ({ page }) => {
        await page.goto(`${site.url}/with-image`);
        return page.title();
      },
      { deadline: soon() },
    );
    expect(title).toBe('ran');
    expect(site.requests.some((r) => r.url === '/img.png')).toBe(false);
  });

  it('refuses a page the SSRF guard refuses, with URL_NOT_ALLOWED', async () => {
    const pool = newPool();
    const err = await pool
      .run(async ({ page }) => void (await page.goto('http://169.254.169.254/latest/meta-data/')), { deadline: soon() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
    expect((err as TrawlError).message).toContain('169.254.169.254');
  });

  it('fails a task whose page redirects to a refused address with URL_NOT_ALLOWED, returning nothing of it', async () => {
    // Stand-in for a redirect to an internal address, so the test never sends anything off the loopback interface.
    const pool = newPool({
      guard: async (url) => {
        if (url.includes('/internal-')) throw new TrawlError('URL_NOT_ALLOWED', `host of ${url} is not allowed`);
        await guard(url);
      },
    });
    const err = await pool
      .run(
        async ({ page }) => {
          await page.goto(`${site.url}/to-internal`).catch(() => undefined);
          return page.content();
        },
        { deadline: soon() },
      )
      .catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
  });

  it('behind the guarding proxy, refuses a redirect to an internal host before any request reaches it', async () => {
    // Stubbed DNS: both names are 127.0.0.1; only site.test is allowlisted (by name).
    const resolve: Resolver = async (host) => (['site.test', 'internal.test'].includes(host) ? ['127.0.0.1'] : []);
    const named = parseAllowList('site.test');
    const proxy = new GuardProxy({ allow: named, resolve });
    const pool = newPool({
      proxyServer: await proxy.start(),
      guard: async (url) => void (await checkUrl(url, { allow: named, resolve })),
    });
    try {
      const err = await pool
        .run(async ({ page }) => void (await page.goto(`http://site.test:${site.port}/to-internal-host`)), {
          deadline: soon(),
        })
        .catch((e: unknown) => e);
      expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
      expect(site.requests.some((r) => r.url === '/to-internal-host')).toBe(true);
      expect(site.requests.some((r) => r.url.includes('internal-host-secret'))).toBe(false);
      expect(proxy.refused).toBeGreaterThanOrEqual(1);
    } finally {
      await pool.close();
      await proxy.close();
    }
  });

  describe('behind the guarding proxy (no route handler)', () => {
    // Stubbed DNS: both names are 127.0.0.1; only site.test is allowlisted (by name).
    const resolve: Resolver = async (host) => (['site.test', 'internal.test'].includes(host) ? ['127.0.0.1'] : []);
    const named = parseAllowList('site.test');
    let proxy: GuardProxy;
    let pool: BrowserPool;

    beforeAll(async () => {
      proxy = new GuardProxy({ allow: named, resolve });
      pool = newPool({
        proxyServer: await proxy.start(),
        guard: async (url) => void (await checkUrl(url, { allow: named, resolve })),
      });
    });
    afterAll(async () => {
      await pool.close();
      await proxy.close();
    });

    it('blocks images but runs scripts', async () => {
      const title = await pool.run(
        async ({ page }) => {
          await page.goto(`http://site.test:${site.port}/with-image?proxied`);
          return page.title();
        },
        { deadline: soon() },
      );
      expect(title).toBe('ran');
      expect(site.requests.some((r) => r.url === '/with-image?proxied')).toBe(true);
      expect(site.requests.some((r) => r.url === '/img.png')).toBe(false);
    });

    it('does not fetch the tab icon (favicon.ico) of the pages it loads', async () => {
      await pool.run(
        async ({ page }) => {
          for (const n of [1, 2, 3]) await page.goto(`http://site.test:${site.port}/icon-${n}`);
        },
        { deadline: soon() },
      );
      const hosts = site.requests.filter((r) => r.url === '/favicon.ico').map((r) => r.headers.host);
      expect(site.requests.filter((r) => r.url.startsWith('/icon-'))).toHaveLength(3);
      expect(hosts).not.toContain(`site.test:${site.port}`);
    });

    it('refuses a page the SSRF guard refuses, with URL_NOT_ALLOWED', async () => {
      const err = await pool
        .run(async ({ page }) => void (await page.goto(`http://internal.test:${site.port}/internal-page-secret`)), {
          deadline: soon(),
        })
        .catch((e: unknown) => e);
      expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
      expect(site.requests.some((r) => r.url.includes('internal-page-secret'))).toBe(false);
    });

    it("refuses a page's request to an internal host before it leaves, and still returns the page", async () => {
      const title = await pool.run(
        async ({ page }) => {
          await page.goto(`http://site.test:${site.port}/fetches-internal`);
          await page.waitForFunction(() => document.title !== '');
          return page.title();
        },
        { deadline: soon() },
      );
      expect(title).toBe('refused');
      expect(site.requests.some((r) => r.url.includes('sub-secret'))).toBe(false);
    });

    it('refuses a subresource redirected to an internal host before it leaves, and still returns the page', async () => {
      const title = await pool.run(
        async ({ page }) => {
          await page.goto(`http://site.test:${site.port}/script-via-redirect`);
          return page.title();
        },
        { deadline: soon() },
      );
      expect(title).toBe('ran');
      const script = site.requests.filter((r) => r.headers.referer?.endsWith('/script-via-redirect'));
      expect(script.map((r) => r.url)).toEqual(['/to-internal-host']); // the script's first hop, not its second
      expect(site.requests.some((r) => r.url.includes('internal-host-secret'))).toBe(false);
    });

    it('sends no WebRTC (STUN) packet to an internal address past the proxy', async () => {
      const udp = createSocket('udp4');
      let packets = 0;
      udp.on('message', () => packets++);
      await new Promise<void>((ok) => udp.bind(0, '127.0.0.1', ok));
      try {
        await pool.run(
          async ({ page }) => {
            await page.goto(`http://site.test:${site.port}/webrtc?port=${udp.address().port}`);
            // ICE gathering ends without the STUN server (or times out), long after any packet would have been sent.
            await page
              .waitForFunction(() => document.title === 'gathered', undefined, { timeout: 15_000 })
              .catch(() => undefined);
          },
          { deadline: soon() },
        );
        expect(packets).toBe(0);
      } finally {
        udp.close();
      }
    });

    it('sends loopback requests through the proxy too (refused when not allowlisted)', async () => {
      const err = await pool
        .run(async ({ page }) => void (await page.goto(`${site.url}/loopback-secret`)), { deadline: soon() })
        .catch((e: unknown) => e);
      expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
      expect(site.requests.some((r) => r.url.includes('loopback-secret'))).toBe(false);
    });
  });

  it('rejects at once with OVERLOADED when the wait queue is full, and times out a waiter at its deadline', async () => {
    hang = new Promise<void>((r) => (releaseHang = r));
    const pool = newPool({ maxPagesPerBrowser: 1, queueLimit: 1 });
    const hangs = site.requests.filter((r) => r.url === '/hang').length;
    const busy = pool.run(async ({ page }) => void (await page.goto(`${site.url}/hang`)), { deadline: soon() });
    // The one page is taken once its request reached the site (a browser's launch takes longer than any fixed pause).
    while (site.requests.filter((r) => r.url === '/hang').length === hangs) await new Promise((r) => setTimeout(r, 20));
    const waiting = pool.run(async () => 'ran', { deadline: Date.now() + 300 }).catch((e: unknown) => e);
    const refused = await pool.run(async () => 'ran', { deadline: soon() }).catch((e: unknown) => e);
    expect((refused as TrawlError).code).toBe('OVERLOADED');
    expect(((await waiting) as TrawlError).code).toBe('UPSTREAM_TIMEOUT');
    expect(pool.stats().queueLength).toBe(0);
    releaseHang();
    await busy;
  });

  it('ends a task at its deadline with UPSTREAM_TIMEOUT and frees its page', async () => {
    const pool = newPool({ maxPagesPerBrowser: 1 });
    const err = await pool
      .run(async ({ page }) => void (await page.goto(`${site.url}/never`, { timeout: 60_000 })), {
        deadline: Date.now() + 1500,
      })
      .catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('UPSTREAM_TIMEOUT');
    await expect(pool.run(async () => 'free again', { deadline: soon() })).resolves.toBe('free again');
  });

  it('ends a task its caller gave up (its signal) with the signal’s reason, frees its page, and drops a queued one', async () => {
    const pool = newPool({ maxPagesPerBrowser: 1 });
    const nevers = site.requests.filter((r) => r.url === '/never').length;
    const running = new AbortController();
    const queued = new AbortController();
    const first = pool
      .run(async ({ page }) => void (await page.goto(`${site.url}/never`, { timeout: 60_000 })), {
        deadline: soon(60_000),
        signal: running.signal,
      })
      .catch((e: unknown) => e);
    while (site.requests.filter((r) => r.url === '/never').length === nevers)
      await new Promise((r) => setTimeout(r, 20));
    // A second task waits for the one page; its caller gives it up while it waits: it leaves the queue, never runs.
    let ran = false;
    const second = pool
      .run(async () => void (ran = true), { deadline: soon(60_000), signal: queued.signal })
      .catch((e: unknown) => e);
    expect(pool.stats().queueLength).toBe(1);
    queued.abort(new TrawlError('TASK_CANCELLED', 'queued task given up'));
    expect(await second).toMatchObject({ code: 'TASK_CANCELLED', message: 'queued task given up' });
    expect(pool.stats().queueLength).toBe(0);
    // The running one: its context is closed as at a deadline, long before its own (60 s), and the page is free.
    running.abort(new TrawlError('TASK_CANCELLED', 'running task given up'));
    expect(await first).toMatchObject({ code: 'TASK_CANCELLED', message: 'running task given up' });
    await expect(pool.run(async () => 'free again', { deadline: soon() })).resolves.toBe('free again');
    expect(ran).toBe(false);
    // (The permit of a finished task comes back after its page's clean-up.)
    while (pool.stats().busyPages > 0) await new Promise((r) => setTimeout(r, 20));
    // Only the task that ran counts as failed (one that left the queue never started).
    expect(pool.stats()).toMatchObject({ queueLength: 0, tasksFailed: 1 });
    // A task given up before it starts never takes the page.
    const before = new AbortController();
    before.abort(new TrawlError('TASK_CANCELLED', 'given up before it started'));
    const never = await pool
      .run(async () => void (ran = true), { deadline: soon(), signal: before.signal })
      .catch((e: unknown) => e);
    expect(never).toMatchObject({ code: 'TASK_CANCELLED' });
    expect(ran).toBe(false);
  });

  it('retires a browser after N tasks and launches a new one', async () => {
    const pool = newPool({ retireAfterPages: 2, maxPagesPerBrowser: 1 });
    for (const n of [1, 2, 3]) {
      await pool.run(async ({ page }) => void (await page.goto(`${site.url}/r${n}`)), { deadline: soon() });
    }
    expect(pool.stats()).toMatchObject({ launched: 2, retired: 1 });
  });

  it('replaces a browser that died', async () => {
    const pool = newPool();
    const err = await pool
      .run(
        async ({ page }) => {
          await page.context().browser()?.close();
          await page.goto(`${site.url}/after-crash`);
        },
        { deadline: soon() },
      )
      .catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
    await expect(
      pool.run(async ({ page }) => (await page.goto(`${site.url}/new`))?.status(), { deadline: soon() }),
    ).resolves.toBe(200);
    expect(pool.stats()).toMatchObject({ crashed: 1, launched: 2 });
  });
});
