import { Inject, Injectable } from '@nestjs/common';
import type { ExtractUrlRequestDto, RetailRecord } from '@trawl/contracts';
import { replyDeadlineMs } from '@trawl/messaging';
import { ParseWorkPool, UpstreamOrigin, UpstreamPageSource } from '@trawl/upstream';

export const RETAIL_ORIGIN = Symbol('RETAIL_ORIGIN');

/**
 * A product page: got through the request's engine (UpstreamPageSource: http, browser, or auto, which renders it
 * when plain HTTP meets Amazon's JavaScript challenge), re-pointed at the simulator in simulator mode, parsed into a
 * RetailRecord.
 */
@Injectable()
export class RetailService {
  constructor(
    private readonly pages: UpstreamPageSource,
    @Inject(RETAIL_ORIGIN) private readonly origin: UpstreamOrigin,
    private readonly parsing: ParseWorkPool,
  ) {}

  async extract(req: ExtractUrlRequestDto): Promise<RetailRecord> {
    const url = this.origin.rebase(req.url);
    const hl = typeof req.params?.hl === 'string' ? req.params.hl : undefined;
    const deadline = this.pages.deadline(replyDeadlineMs(req.timeout));
    const page = await this.pages.get(
      {
        url,
        what: 'product page',
        deadline,
        engine: req.engine,
        ...(hl && /^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$/.test(hl) ? { hl } : {}),
      },
      (p) =>
        this.parsing.parse(
          { parser: 'retail', html: p.html, url: req.url },
          'the product page',
          deadline.remainingMs(),
        ),
    );
    return page.value;
  }
}
