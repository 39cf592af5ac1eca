import { Injectable, Inject } from '@nestjs/common';
import type { RenderPageReply, RenderPageRequestDto } from '@trawl/contracts';
import { checkUrl } from '@trawl/safe-fetch';
import { replyDeadlineMs } from '@trawl/upstream';
import { BrowserScrapeEngine } from './engines/browser-scrape.engine.js';
import { SCRAPE_SETTINGS, type ScrapeSettings } from './scrape.settings.js';

/**
 * A render for an upstream extractor (SUBJECTS.renderPage): the same SSRF check as /scrape, then the page in the
 * same pool through the same browser engine (navigation, waits, snapshot), its cookies set for the page's URL first.
 * The reply carries what the extractor's parser and error mapping need: final URL, status, headers, HTML.
 */
@Injectable()
export class RenderService {
  constructor(
    @Inject(SCRAPE_SETTINGS) private readonly settings: ScrapeSettings,
    private readonly browser: BrowserScrapeEngine,
  ) {}

  async render(req: RenderPageRequestDto): Promise<RenderPageReply> {
    const started = Date.now();
    const deadline = started + replyDeadlineMs(req.timeout);
    await checkUrl(req.url, { allow: this.settings.allow });
    const page = await this.browser.render({
      url: req.url,
      deadline,
      ...(req.headers ? { headers: req.headers } : {}),
      ...(req.waitFor ? { waitFor: req.waitFor } : {}),
      ...(req.cookies ? { cookies: req.cookies } : {}),
    });
    return {
      url: page.url,
      status: page.status,
      headers: page.headers ?? {},
      html: page.html,
      renderMs: Date.now() - started,
    };
  }
}
