import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  IDEMPOTENCY_KEY_PATTERN,
  LIMITS,
  JOB_ID_PATTERN,
  JOB_ID_RULE,
  MapsBatchRequestDto,
  SearchBatchRequestDto,
  TrawlError,
  UrlBatchRequestDto,
  type BatchJob,
  type TaskRecord,
  type TaskSubmitReply,
} from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { NativeOperations } from '../compat/native-operations.service.js';
import { RawJson } from '../validation/raw-json.serializer.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

/** The one member of a submission's reply (a compile error here if TaskSubmitReply ever gains another). */
const JOBS_KEY: keyof TaskSubmitReply & 'jobs' = 'jobs';
type OnlyJobs = Exclude<keyof TaskSubmitReply, 'jobs'> extends never ? true : false;
const ONLY_JOBS: OnlyJobs = true;
void ONLY_JOBS;

/** `Retry-After` (seconds) when a key's cap of outstanding jobs refuses a batch: time for some of its jobs to finish. */
const OUTSTANDING_RETRY_AFTER_SEC = 30;

/** `Retry-After` (seconds) when the first request with the same Idempotency-Key is still being submitted. */
const IN_PROGRESS_RETRY_AFTER_SEC = 1;

/**
 * A submission refused with RATE_LIMITED (the key's cap of queued plus running jobs, TASK_MAX_OUTSTANDING_PER_KEY) is
 * answered with `Retry-After`, as the gateway's own rate limits are; so is IDEMPOTENCY_KEY_IN_PROGRESS.
 */
async function withRetryAfter<T>(reply: FastifyReply, submit: Promise<T>): Promise<T> {
  try {
    return await submit;
  } catch (e) {
    if (e instanceof TrawlError && e.code === 'RATE_LIMITED')
      void reply.header('retry-after', OUTSTANDING_RETRY_AFTER_SEC);
    if (e instanceof TrawlError && e.code === 'IDEMPOTENCY_KEY_IN_PROGRESS')
      void reply.header('retry-after', IN_PROGRESS_RETRY_AFTER_SEC);
    throw e;
  }
}

/** The `Idempotency-Key` header, checked: absent, or 1-255 visible ASCII characters (400 naming the header). */
function idempotencyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw new TrawlError(
      'VALIDATION_FAILED',
      `Idempotency-Key must be 1-${LIMITS.maxIdempotencyKeyLength} visible ASCII characters (no spaces), given once`,
      { field: 'Idempotency-Key' },
    );
  }
  return header;
}

/** OpenAPI: the optional `Idempotency-Key` header of the batch operations. */
const IdempotencyKeyHeader = ApiHeader({
  name: 'Idempotency-Key',
  required: false,
  description:
    'Makes a retried submission safe: the same key with the same body within 24 h answers the same job objects and ' +
    'creates nothing; with another body 409 IDEMPOTENCY_KEY_REUSED. Scoped to the API key. ' +
    `1-${LIMITS.maxIdempotencyKeyLength} visible ASCII characters, e.g. a UUID.`,
  schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source, maxLength: LIMITS.maxIdempotencyKeyLength },
});

/** The job id of a path, by the rule task-service applies too (an id it would refuse is refused here, alike). */
function jobIdOf(jobId: string): string {
  if (!JOB_ID_PATTERN.test(jobId)) throw new TrawlError('VALIDATION_FAILED', JOB_ID_RULE, { field: 'jobId' });
  return jobId;
}

/** The `jobId` path parameter, with the rule the gateway checks (JOB_ID_PATTERN) before asking task-service. */
const JOB_ID_PARAM = {
  name: 'jobId',
  description: 'Job id from a batch submission: 1-200 letters, digits, `_` or `-`.',
  schema: { type: 'string', pattern: JOB_ID_PATTERN.source, minLength: 1, maxLength: 200 },
} as const;

/** Asynchronous batches and task lookup: forwarded to task-service, which owns job state. */
@ApiTags('tasks')
@Controller('extractTask')
export class TasksController {
  constructor(private readonly operations: NativeOperations) {}

  @Post('batch/maps')
  @HttpCode(200)
  @ApiOperationDoc(
    'Submit a maps batch',
    'One job per call; each query runs as a child; the outcome goes to the webhook.',
  )
  @IdempotencyKeyHeader
  maps(
    @Body() body: MapsBatchRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<BatchJob[]> {
    return this.jobsOf({ kind: 'maps', request: body }, idempotencyKey, req, res);
  }

  @Post('batch/search')
  @HttpCode(200)
  @ApiOperationDoc('Submit a web-search batch', 'One job per call; each query runs as a child.')
  @IdempotencyKeyHeader
  search(
    @Body() body: SearchBatchRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<BatchJob[]> {
    return this.jobsOf({ kind: 'search', request: body }, idempotencyKey, req, res);
  }

  @Post('batch')
  @HttpCode(200)
  @ApiOperationDoc('Submit a URL batch', 'One job per URL; each outcome goes to the webhook.')
  @IdempotencyKeyHeader
  async urls(
    @Body() body: UrlBatchRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<RawJson> {
    // The spec's batch needs a webhook; only a peer API's batch (followed by lookup) goes without one (ADR 0024).
    if (body.webhook === undefined) {
      throw new TrawlError('VALIDATION_FAILED', 'webhook must be an absolute http(s) URL', { field: 'webhook' });
    }
    // Up to 10,000 job objects (4.7 MB): forwarded as JSON text, written once into the envelope (RawJson).
    const reply = await withRetryAfter(
      res,
      this.operations.submitValidatedRaw({ kind: 'url', request: body }, req, idempotencyOf(idempotencyKey)),
    );
    return RawJson.onlyArrayMember(reply, JOBS_KEY);
  }

  /** A maps or search batch: submitted with the caller's key and Idempotency-Key; answers its job objects. */
  private async jobsOf(
    batch: { kind: 'maps'; request: MapsBatchRequestDto } | { kind: 'search'; request: SearchBatchRequestDto },
    idempotencyKey: string | undefined,
    req: AuthenticatedRequest,
    res: FastifyReply,
  ): Promise<BatchJob[]> {
    const reply = await withRetryAfter(res, this.operations.submitValidated(batch, req, idempotencyOf(idempotencyKey)));
    return reply.jobs;
  }

  @Get(':jobId')
  @ApiParam(JOB_ID_PARAM)
  @ApiOperationDoc('Look up a task', 'Only the key that submitted a task finds it; any other key gets 404.')
  lookup(@Param('jobId') jobId: string, @Req() req: AuthenticatedRequest): Promise<TaskRecord> {
    return this.operations.lookup(jobIdOf(jobId), req);
  }

  @Delete(':jobId')
  @HttpCode(200)
  @ApiParam(JOB_ID_PARAM)
  @ApiOperationDoc(
    'Cancel a task',
    'A waiting or delayed task never runs; a running one stops waiting for its extractor and its result is ' +
      'discarded; a batch cancels its queries. The task fails with TASK_CANCELLED and that outcome goes to the ' +
      'webhook like any other. Answers the task record (failed, once a worker took it: at once unless every worker ' +
      'is busy). A finished task: 409 TASK_FINISHED. Another key’s task: 404, as lookup.',
  )
  cancel(@Param('jobId') jobId: string, @Req() req: AuthenticatedRequest): Promise<TaskRecord> {
    return this.operations.cancel(jobIdOf(jobId), req);
  }
}
