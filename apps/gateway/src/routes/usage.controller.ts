import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { LLM_TOKENS_MAX_MONTHS, TrawlError, type KeyQueueUsage, type LlmTokensUsage } from '@trawl/contracts';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { NativeOperations } from '../compat/native-operations.service.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

/** Months answered by GET /usage/tokens when `months` is not given: a year. */
export const DEFAULT_USAGE_MONTHS = 12;

/** `months` of GET /usage/tokens: an integer 1–24, default 12. */
export function usageMonthsOf(months: string | undefined): number {
  if (months === undefined) return DEFAULT_USAGE_MONTHS;
  if (!/^[0-9]{1,2}$/.test(months) || Number(months) < 1 || Number(months) > LLM_TOKENS_MAX_MONTHS) {
    throw new TrawlError('VALIDATION_FAILED', `months must be an integer 1-${LLM_TOKENS_MAX_MONTHS}`, {
      field: 'months',
    });
  }
  return Number(months);
}

@ApiTags('usage')
@Controller('usage')
export class UsageController {
  constructor(private readonly operations: NativeOperations) {}

  @Get('tokens')
  @ApiQuery({
    name: 'months',
    required: false,
    description: `Months answered, the current one first: 1-${LLM_TOKENS_MAX_MONTHS}, default ${DEFAULT_USAGE_MONTHS}.`,
  })
  @ApiOperationDoc(
    'The key’s language-model tokens',
    'Tokens the calling key’s `json` and `summary` formats spent per calendar month (UTC), its monthly budget ' +
      '(LLM_TOKENS_PER_KEY_PER_MONTH, 0: no cap) and what is left of it (ADR 0040).',
  )
  tokens(@Req() req: AuthenticatedRequest, @Query('months') months: string | undefined): Promise<LlmTokensUsage> {
    return this.operations.tokenUsage(req, usageMonthsOf(months));
  }

  @Get('queue')
  @ApiOperationDoc(
    'The key’s jobs and requests in flight',
    'Where the calling key’s jobs stand in the task queues (outstanding, running, waiting, its cap of outstanding ' +
      'jobs, its last success) and how many of its requests the gateway is serving now against its concurrency ' +
      'limit, this one left out (ADR 0041). Crawls are not jobs here: GET /crawl/active lists them.',
  )
  queue(@Req() req: AuthenticatedRequest): Promise<KeyQueueUsage> {
    return this.operations.queueUsage(req);
  }
}
