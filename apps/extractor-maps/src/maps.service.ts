import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  LIMITS,
  type ExtractUrlRequestDto,
  type MapsSearchData,
  type MapsSearchRequestDto,
  type MapsSearchResponse,
  type PlaceRecord,
} from '@trawl/contracts';
import { replyDeadlineMs } from '@trawl/messaging';
import { buildMapsSearchUrl, DEFAULT_MAPS_PAGE_SIZE } from '@trawl/parsers';
import {
  assertMapsUrl,
  cookieList,
  GOOGLE_CONSENT_COOKIE,
  ParseWorkPool,
  UpstreamOrigin,
  UpstreamPageSource,
  type UpstreamPageRequest,
} from '@trawl/upstream';

export const MAPS_ORIGIN = Symbol('MAPS_ORIGIN');

const CONSENT = cookieList(GOOGLE_CONSENT_COOKIE);

/**
 * Map searches and single places. A search fetches as many result pages (DEFAULT_MAPS_PAGE_SIZE places each) as
 * `num` needs, one after another under one deadline, and stops early at a short page. URLs given to /extract are
 * fetched as given, or re-pointed at the simulator in simulator mode (see README).
 *
 * Pages come through the request's engine (UpstreamPageSource: http, browser or auto). Over HTTP a search asks the
 * maps client's JSON endpoint page by page; in a browser it renders the `/maps/search/<q>/@lat,lng,zoomz` page, whose
 * result list the parser reads from the DOM, once (that page has no offset: `start` skips into its list).
 */
@Injectable()
export class MapsService {
  constructor(
    private readonly pages: UpstreamPageSource,
    @Inject(MAPS_ORIGIN) private readonly origin: UpstreamOrigin,
    private readonly parsing: ParseWorkPool,
  ) {}

  async search(req: MapsSearchRequestDto): Promise<MapsSearchResponse> {
    const processedOn = new Date();
    const deadline = this.pages.deadline(replyDeadlineMs(req.timeout));
    const start = req.start ?? 0;
    const wanted = req.num ?? LIMITS.defaultMapsSearchNum;
    let merged: MapsSearchData | undefined;
    for (let offset = start; offset < start + wanted; offset += DEFAULT_MAPS_PAGE_SIZE) {
      const num = Math.min(DEFAULT_MAPS_PAGE_SIZE, start + wanted - offset);
      const requestUrl = buildMapsSearchUrl(this.origin.base.toString(), {
        q: req.q,
        ll: req.ll,
        hl: req.hl,
        num,
        start: offset,
      });
      const browserUrl = this.mapsSearchPageUrl(req.q, req.ll, req.hl);
      const { value: page, engine } = await this.pages.get(
        {
          url: requestUrl,
          browserUrl,
          what: 'maps search',
          deadline,
          engine: req.engine,
          hl: req.hl,
          cookies: CONSENT,
        },
        (p) =>
          this.parsing.parse(
            {
              parser: 'maps-search',
              html: p.html,
              q: req.q,
              hl: req.hl,
              ll: req.ll,
              requestUrl: p.url.includes('/maps/search/') ? browserUrl : requestUrl,
              now: processedOn.getTime(),
            },
            'the maps search page',
            deadline.remainingMs(),
          ),
      );
      if (engine === 'browser') {
        // The rendered page is the whole list there is: no further pages to ask for.
        page.organicResults = page.organicResults.slice(start);
        merged = page;
        break;
      }
      merged = merged ? concatPlaces(merged, page) : page;
      if (page.organicResults.length < num) break;
    }
    const data = merged as MapsSearchData;
    data.organicResults = data.organicResults.slice(0, wanted);
    return {
      data,
      taskId: randomUUID(),
      status: 'completed',
      finishedOn: new Date().toISOString(),
      processedOn: processedOn.toISOString(),
      stacktrace: null,
      totalResults: data.organicResults.length,
    };
  }

  /** A place page URL (type `mp-maps`). */
  async place(req: ExtractUrlRequestDto): Promise<PlaceRecord> {
    assertMapsUrl(req.url, this.origin, 'mp-maps');
    const request = this.urlRequest(req, 'place page');
    const page = await this.pages.get(request, (p) =>
      this.parsing.parse(
        { parser: 'maps-place', html: p.html, url: req.url },
        'the place page',
        request.deadline.remainingMs(),
      ),
    );
    return page.value;
  }

  /** A maps search URL (type `mp-search`). */
  async searchUrl(req: ExtractUrlRequestDto): Promise<MapsSearchData> {
    const u = assertMapsUrl(req.url, this.origin, 'mp-search');
    const q =
      u.searchParams.get('q') ??
      decodeURIComponent(/\/maps\/search\/([^/]+)/.exec(u.pathname)?.[1] ?? '').replace(/\+/g, ' ');
    const ll = /@(-?[\d.]+,-?[\d.]+,[\d.]+z)/.exec(u.pathname)?.[1];
    const hl = u.searchParams.get('hl') ?? (typeof req.params?.hl === 'string' ? req.params.hl : 'en');
    const request = this.urlRequest(req, 'maps search page');
    const page = await this.pages.get(request, (p) =>
      this.parsing.parse(
        { parser: 'maps-search', html: p.html, q, hl, ll, requestUrl: req.url },
        'the maps search page',
        request.deadline.remainingMs(),
      ),
    );
    return page.value;
  }

  /** The page a browser shows for a maps search: `<base>/maps/search/<q>/@lat,lng,zoomz?hl=…`. */
  private mapsSearchPageUrl(q: string, ll: string, hl: string): string {
    const path = `maps/search/${encodeURIComponent(q).replace(/%20/g, '+')}/@${ll.replace(/^@/, '')}`;
    const url = new URL(path, this.origin.base);
    url.searchParams.set('hl', hl);
    return url.toString();
  }

  private urlRequest(req: ExtractUrlRequestDto, what: string): UpstreamPageRequest {
    const param = (name: string) => (typeof req.params?.[name] === 'string' ? String(req.params[name]) : undefined);
    const hl = param('hl');
    const gl = param('gl');
    return {
      url: this.origin.rebase(req.url),
      what,
      deadline: this.pages.deadline(replyDeadlineMs(req.timeout)),
      engine: req.engine,
      ...(hl && /^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$/.test(hl) ? { hl } : {}),
      ...(gl && /^[a-zA-Z]{2}$/.test(gl) ? { gl } : {}),
      cookies: CONSENT,
    };
  }
}

function concatPlaces(first: MapsSearchData, next: MapsSearchData): MapsSearchData {
  const seen = new Set(first.organicResults.map((p) => p.place_id || p.cid || p.name));
  const fresh = next.organicResults.filter((p) => !seen.has(p.place_id || p.cid || p.name));
  return { ...first, organicResults: [...first.organicResults, ...fresh] };
}
