import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  ExtractUrlRequestDto,
  MapsSearchRequestDto,
  SUBJECTS,
  type MapsSearchData,
  type MapsSearchResponse,
  type PlaceRecord,
} from '@trawl/contracts';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { withResultMeta } from '@trawl/parsers';
import { MapsService } from './maps.service.js';

/** Serves the maps subjects in the extractor-maps queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class MapsController {
  constructor(private readonly service: MapsService) {}

  /** POST /extract/search/maps */
  @ServesSubject(SUBJECTS.searchMaps)
  async search(@Payload() req: MapsSearchRequestDto): Promise<MapsSearchResponse> {
    const res = await this.service.search(req);
    return { ...res, data: withResultMeta(res.data, req.meta) };
  }

  /** POST /extract, type `mp-maps` */
  @ServesSubject(SUBJECTS.extractPlace)
  async place(@Payload() req: ExtractUrlRequestDto): Promise<PlaceRecord> {
    return withResultMeta(await this.service.place(req), req.meta);
  }

  /** POST /extract, type `mp-search` */
  @ServesSubject(SUBJECTS.extractMapsSearchUrl)
  async searchUrl(@Payload() req: ExtractUrlRequestDto): Promise<MapsSearchData> {
    return withResultMeta(await this.service.searchUrl(req), req.meta);
  }
}
