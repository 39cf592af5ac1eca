import { Module } from '@nestjs/common';
import { NativeRoutesModule } from '../../routes/native-routes.module.js';
import { SerpApiController } from './serp-api.controller.js';

/** SerpAPI's `/search.json` (ADR 0024): a translation of the native search and maps search. */
@Module({
  imports: [NativeRoutesModule],
  controllers: [SerpApiController],
})
export class SerpApiModule {}
