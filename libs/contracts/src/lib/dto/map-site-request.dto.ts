import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import type { MapSiteRequest } from '../crawl.types.js';
import { MapRequestDto } from './map-request.dto.js';

/** NATS payload of `map.site.v1`: POST /map's body (checked again) and the key asking. */
export class MapSiteRequestDto implements MapSiteRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => MapRequestDto)
  request!: MapRequestDto;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;
}
