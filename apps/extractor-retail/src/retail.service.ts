import { Inject, Injectable } from '@nestjs/common';
import type { ExtractUrlRequestDto, RetailRecord } from '@trawl/contracts';
import { parseProductPage } from '@trawl/parsers';
import { replyDeadlineMs, UpstreamFetcher, UpstreamOrigin } from '@trawl/upstream';

export const RETAIL_ORIGIN = Symbol('RETAIL_ORIGIN');

/** A product page: fetched (re-pointed at the simulator in simulator mode), parsed into a RetailRecord. */
@Injectable()
export class RetailService {
  constructor(
    private readonly fetcher: UpstreamFetcher,
    @Inject(RETAIL_ORIGIN) private readonly origin: UpstreamOrigin,
  ) {}

  extract(req: ExtractUrlRequestDto): Promise<RetailRecord> {
    const url = this.origin.rebase(req.url);
    const hl = typeof req.params?.hl === 'string' ? req.params.hl : undefined;
    return this.fetcher.fetchParsed(
      url,
      { timeoutMs: replyDeadlineMs(req.timeout), hl, what: 'product page' },
      (page) => parseProductPage(page.html, { url: req.url }),
    );
  }
}
