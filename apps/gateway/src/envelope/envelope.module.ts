import { Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { DtoValidationPipe } from '../validation/dto-validation.pipe.js';
import { EnvelopeExceptionFilter } from './envelope-exception.filter.js';
import { EnvelopeInterceptor } from './envelope.interceptor.js';

/** Infrastructure of every route: bodies validated against their DTO, answers and errors in the envelope. */
@Module({
  providers: [
    { provide: APP_PIPE, useClass: DtoValidationPipe },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
    { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
  ],
})
export class EnvelopeModule {}
