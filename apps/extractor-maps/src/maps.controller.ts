import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ExtractUrlRequestDto,
  MapsSearchRequestDto,
  parseDto,
  SUBJECTS,
  type MapsSearchData,
  type MapsSearchResponse,
  type PlaceRecord,
} from '@trawl/contracts';
import { WireErrorFilter } from '@trawl/messaging';
import { withResultMeta } from '@trawl/parsers';
import { MapsService } from './maps.service.js';

/** Serves the maps subjects in the extractor-maps queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class MapsController {
  constructor(private readonly service: MapsService) {}

  /** POST /extract/search/maps */
  @MessagePattern(SUBJECTS.searchMaps)
  async search(@Payload() payload: unknown): Promise<MapsSearchResponse> {
    const req = parseDto(MapsSearchRequestDto, payload);
    const res = await this.service.search(req);
    return { ...res, data: withResultMeta(res.data, req.meta) };
  }

  /** POST /extract, type `mp-maps` */
  @MessagePattern(SUBJECTS.extractPlace)
  async place(@Payload() payload: unknown): Promise<PlaceRecord> {
    const req = parseDto(ExtractUrlRequestDto, payload);
    return withResultMeta(await this.service.place(req), req.meta);
  }

  /** POST /extract, type `mp-search` */
  @MessagePattern(SUBJECTS.extractMapsSearchUrl)
  async searchUrl(@Payload() payload: unknown): Promise<MapsSearchData> {
    const req = parseDto(ExtractUrlRequestDto, payload);
    return withResultMeta(await this.service.searchUrl(req), req.meta);
  }
}
