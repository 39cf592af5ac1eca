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
import { MapsService } from './maps.service.js';

/** Serves the maps subjects in the extractor-maps queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class MapsController {
  constructor(private readonly service: MapsService) {}

  /** POST /extract/search/maps */
  @MessagePattern(SUBJECTS.searchMaps)
  search(@Payload() payload: unknown): Promise<MapsSearchResponse> {
    return this.service.search(parseDto(MapsSearchRequestDto, payload));
  }

  /** POST /extract, type `mp-maps` */
  @MessagePattern(SUBJECTS.extractPlace)
  place(@Payload() payload: unknown): Promise<PlaceRecord> {
    return this.service.place(parseDto(ExtractUrlRequestDto, payload));
  }

  /** POST /extract, type `mp-search` */
  @MessagePattern(SUBJECTS.extractMapsSearchUrl)
  searchUrl(@Payload() payload: unknown): Promise<MapsSearchData> {
    return this.service.searchUrl(parseDto(ExtractUrlRequestDto, payload));
  }
}
