import {
  BROWSER_SCRAPE_LIMITS,
  TrawlError,
  type ScrapeAction,
  type ScrapeActionsResult,
  type ScreenshotFormat,
} from '@trawl/contracts';
import { errors, type Page } from 'playwright-core';

export interface PageActionsOptions {
  /** Epoch ms by which every action must be done (the scrape's deadline less what reading the page needs). */
  until: number;
  /** Largest screenshot, bytes (each one). */
  maxScreenshotBytes: number;
  /** Largest rendered HTML of a `scrape` action, characters. */
  maxHtmlChars: number;
}

/**
 * Runs a scrape's actions on its page, in order (Firecrawl's semantics), and collects what they produce. Each action
 * is bounded by what is left of `until`; a failure names the action and its index (`actions[i]`): UPSTREAM_TIMEOUT
 * when time ran out, PAGE_NOT_RECOGNISED when the page had nothing for it (no element for a selector, a script that
 * threw or returned what JSON cannot carry). Whatever the actions make the page load goes through the pool's
 * request guard like every other request of the page.
 */
export async function runPageActions(
  page: Page,
  actions: readonly ScrapeAction[],
  options: PageActionsOptions,
): Promise<ScrapeActionsResult> {
  const result: ScrapeActionsResult = { screenshots: [], scrapes: [], javascriptReturns: [] };
  for (const [index, action] of actions.entries()) {
    const left = () => Math.max(1, options.until - Date.now());
    const field = `actions[${index}]`;
    const name = `action ${index} (${action.type})`;
    try {
      await bounded(runOne(page, action, result, options, left), left(), name, field);
    } catch (e) {
      if (e instanceof TrawlError)
        throw e.field ? e : new TrawlError(e.code, `${name}: ${e.message}`, { field, cause: e });
      if (e instanceof errors.TimeoutError)
        throw new TrawlError('UPSTREAM_TIMEOUT', `${name} did not finish in time`, { field, cause: e });
      const message = (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300);
      throw new TrawlError('PAGE_NOT_RECOGNISED', `${name} failed: ${message}`, { field, cause: e });
    }
  }
  return result;
}

async function runOne(
  page: Page,
  action: ScrapeAction,
  result: ScrapeActionsResult,
  options: PageActionsOptions,
  left: () => number,
): Promise<void> {
  switch (action.type) {
    case 'wait':
      if (action.selector !== undefined) await page.waitForSelector(action.selector, { timeout: left() });
      else await page.waitForTimeout(Math.min(action.milliseconds ?? 0, left()));
      return;
    case 'click':
      if (action.all) {
        const targets = await page.locator(action.selector).all();
        if (targets.length === 0) throw new Error(`no element matches ${JSON.stringify(action.selector)}`);
        for (const target of targets) await target.click({ timeout: left() });
      } else {
        if ((await page.locator(action.selector).count()) === 0)
          throw new Error(`no element matches ${JSON.stringify(action.selector)}`);
        await page.locator(action.selector).first().click({ timeout: left() });
      }
      return;
    case 'write':
      await page.keyboard.type(action.text);
      return;
    case 'press':
      await page.keyboard.press(action.key);
      return;
    case 'scroll': {
      const up = action.direction === 'up';
      if (action.selector !== undefined) {
        const target = page.locator(action.selector).first();
        if ((await page.locator(action.selector).count()) === 0)
          throw new Error(`no element matches ${JSON.stringify(action.selector)}`);
        await target.evaluate((el, toTop) => el.scrollBy(0, (toTop ? -1 : 1) * el.clientHeight), up);
      } else await page.mouse.wheel(0, (up ? -1 : 1) * (page.viewportSize()?.height ?? 720));
      return;
    }
    case 'screenshot':
      result.screenshots.push(await takeScreenshot(page, action, options.maxScreenshotBytes, left()));
      return;
    case 'scrape': {
      const html = await page.content();
      if (html.length > options.maxHtmlChars)
        throw new TrawlError(
          'CONTENT_TOO_LARGE',
          `the page is ${html.length} characters of HTML, more than ${options.maxHtmlChars}`,
        );
      result.scrapes.push({ url: page.url(), html });
      return;
    }
    case 'executeJavascript': {
      // The script is the body of an async function: `return` gives the value (JSON-serialised in the page).
      const json = await page.evaluate(
        `(async () => { ${action.script}\n})().then((v) => v === undefined ? undefined : JSON.stringify(v))`,
      );
      if (json !== undefined && typeof json !== 'string') throw new Error('the script returned what JSON cannot carry');
      if (json !== undefined && json.length > BROWSER_SCRAPE_LIMITS.maxScriptReturnChars)
        throw new TrawlError(
          'CONTENT_TOO_LARGE',
          `its return value is ${json.length} characters of JSON, more than ${BROWSER_SCRAPE_LIMITS.maxScriptReturnChars}`,
        );
      const value: unknown = json === undefined ? undefined : JSON.parse(json);
      result.javascriptReturns.push({ type: value === null ? 'null' : typeof value, value: value ?? null });
      return;
    }
  }
}

/**
 * A screenshot as a data URL: PNG, or JPEG at `quality`; the viewport, or the whole page with `fullPage`. Over
 * `maxBytes` the scrape fails with CONTENT_TOO_LARGE (the image is not kept).
 */
export async function takeScreenshot(
  page: Page,
  format: Pick<ScreenshotFormat, 'fullPage' | 'quality'>,
  maxBytes: number,
  timeoutMs: number,
): Promise<string> {
  const jpeg = format.quality !== undefined;
  const image = await page.screenshot({
    type: jpeg ? 'jpeg' : 'png',
    ...(jpeg ? { quality: format.quality } : {}),
    fullPage: format.fullPage === true,
    timeout: timeoutMs,
    animations: 'disabled',
  });
  if (image.length > maxBytes)
    throw new TrawlError(
      'CONTENT_TOO_LARGE',
      `the screenshot is ${image.length} bytes, more than the ${maxBytes} a scrape may return`,
    );
  return `data:image/${jpeg ? 'jpeg' : 'png'};base64,${image.toString('base64')}`;
}

/** `work` raced against `ms`: an action that does not settle in time (a script that never returns) fails its scrape. */
function bounded<T>(work: Promise<T>, ms: number, name: string, field: string): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const out = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TrawlError('UPSTREAM_TIMEOUT', `${name} did not finish in time`, { field })),
      ms,
    );
  });
  return Promise.race([work, out]).finally(() => clearTimeout(timer));
}
