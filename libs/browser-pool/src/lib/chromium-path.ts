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

/** Launch flags: safe to run as root in a container, and nothing that phones home or idles the CPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
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
  // A reused page navigates from task to task: no previous document kept alive in the back/forward cache, and no
  // spare renderer process warmed up ahead (contexts are long-lived, so the spare is mostly wasted work and memory).
  '--disable-features=BackForwardCache,SpareRendererForSitePerProcess',
  // Software compositing in the browser process: one process fewer (about 70 MB PSS) and less IPC per frame.
  '--in-process-gpu',
] as const;
