import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium to launch: `configured` (CHROMIUM_PATH) when set; else Playwright's own bundled build when it is
 * installed (`npx playwright-core install chromium`); else the system Chromium.
 */
export function resolveChromiumPath(configured?: string): string {
  if (configured) return configured;
  try {
    const bundled = chromium.executablePath();
    if (bundled && existsSync(bundled)) return bundled;
  } catch {
    // no bundled browser registered for this platform
  }
  return SYSTEM_CHROMIUM;
}

/** The features Playwright 1.65 disables (its chromiumSwitches.ts); repeated because our list replaces its own. */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
];

/**
 * Whether Chromium may use its sandbox here: not as root (Chromium refuses to start sandboxed as root) and not when
 * the operator turned it off (BROWSER_NO_SANDBOX=true, for a runtime that forbids the namespaces it needs). The
 * reason is for a warning in the log.
 */
export function sandboxDecision(
  noSandbox: boolean,
  uid: number | undefined = process.getuid?.(),
): { sandbox: boolean; reason?: string } {
  if (noSandbox) return { sandbox: false, reason: 'BROWSER_NO_SANDBOX=true' };
  if (uid === 0) return { sandbox: false, reason: 'running as root' };
  return { sandbox: true };
}

/**
 * Launch flags: no automation markers, and nothing that phones home or idles the CPU. `--no-sandbox` is not here:
 * Playwright adds it unless the pool launches with `chromiumSandbox` (see sandboxDecision).
 */
export const CHROMIUM_ARGS = [
  // navigator.webdriver stays false, as in a browser a person runs (the identity does the rest: see browser-identity).
  '--disable-blink-features=AutomationControlled',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-extensions',
  '--disable-default-apps',
  '--mute-audio',
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  // Chromium honours only the last --disable-features, and this one comes after Playwright's own, so it repeats
  // Playwright 1.65's list (chromiumSwitches.ts: no network-time, optimization-hint or HTTPS-upgrade requests, no
  // paint holding) before ours. Ours: a reused page navigates from task to task, so no previous document kept alive
  // in the back/forward cache and no spare renderer warmed up ahead (contexts are long-lived: mostly wasted work);
  // and no RenderDocument: a same-site navigation reuses the frame's host and compositor instead of building new ones
  // (−20 ms of CPU a page of ~90, browser and renderer alike; rendering, rAF and observers unchanged; BENCHMARKS.md).
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'BackForwardCache', 'SpareRendererForSitePerProcess', 'RenderDocument'].join(',')}`,
  // WebRTC may not send UDP past the proxy (STUN/TURN to any address, internal ones included): without this a page's
  // RTCPeerConnection reaches an internal UDP port directly, outside the SSRF guard.
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  // Software compositing in the browser process: one process fewer (about 70 MB PSS) and less IPC per frame.
  '--in-process-gpu',
  // A cross-site iframe renders in its page's process, as Chrome on Android does for sites without logins, so the
  // tab's interception (blockAds, the caller's headers) and its identity (client hints with "Google Chrome") cover
  // it too; in a process of its own neither reached it. Tenants stay apart: a renderer never serves two browser
  // contexts (ADR 0030, "Cross-site iframes").
  '--disable-site-isolation-trials',
] as const;
