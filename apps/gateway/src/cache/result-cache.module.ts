import { Module } from '@nestjs/common';
import { ResultCacheService } from './result-cache.service.js';

/** The result cache (`maxAge`, `storeInCache`, ADR 0016) the native operations answer through. */
@Module({
  providers: [ResultCacheService],
  exports: [ResultCacheService],
})
export class ResultCacheModule {}
