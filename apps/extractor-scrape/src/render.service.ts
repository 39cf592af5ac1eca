import { Inject, Injectable } from '@nestjs/common';
import { BrowserPool } from '@trawl/browser-pool';
import type { RenderPageReply, RenderPageRequestDto } from '@trawl/contracts';
import { replyDeadlineMs } from '@trawl/messaging';
import { checkUrl } from '@trawl/safe-fetch';
import { renderPage } from './engines/page.renderer.js';
import { SCRAPE_SETTINGS, type ScrapeSettings } from './scrape.settings.js';

/**
 * A render for an upstream extractor (SUBJECTS.renderPage): the same SSRF check as /scrape (and, in the browser,
 * the same guarding proxy and per-hop checks of the pool), then the page in the same pool. Its cookies are set for
 * the page's URL first (a context holding cookies is never reused: the pool's clean check). The page is followed
 * through the walls' script navigations until it is quiet (renderPage). The reply carries what the extractor's
 * parser and error mapping need: final URL, status, headers, HTML.
 */
@Injectable()
export class RenderService {
  constructor(
    @Inject(SCRAPE_SETTINGS) private readonly settings: ScrapeSettings,
    private readonly pool: BrowserPool,
  ) {}

  async render(req: RenderPageRequestDto): Promise<RenderPageReply> {
    const started = Date.now();
    const deadline = started + replyDeadlineMs(req.timeout);
    await checkUrl(req.url, { allow: this.settings.allow });
    if (req.retireSession) this.pool.retireSession(req.retireSession, { blocked: true });
    const page = await this.pool.run(
      async ({ page, remainingMs }) => {
        if (req.cookies && req.cookies.length > 0)
          await page.context().addCookies(req.cookies.map((c) => ({ ...c, url: req.url })));
        const rendered = await renderPage(page, req.url, remainingMs, {
          maxChars: this.settings.maxBodyBytes,
          ...(req.waitFor ? { waitForMs: req.waitFor } : {}),
        });
        const browserVersion = page.context().browser()?.version();
        return { ...rendered, ...(browserVersion ? { browserVersion } : {}) };
      },
      {
        deadline,
        ...(req.headers ? { headers: req.headers } : {}),
        // The identity (locale, Accept-Language, time zone) follows hl/gl; a named session keeps its identity.
        ...(req.hl ? { hl: req.hl } : {}),
        ...(req.gl ? { gl: req.gl } : {}),
        ...(req.session ? { session: req.session } : {}),
        // The session's upstream proxy is drawn and benched for this host only (ADR 0027): one upstream's block
        // does not set a shared proxy aside for every other caller.
        proxyScope: new URL(req.url).host,
      },
    );
    return { ...page, renderMs: Date.now() - started };
  }
}
