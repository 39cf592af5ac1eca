import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import {
  JOB_ID_PATTERN,
  JOB_ID_RULE,
  MapsBatchRequestDto,
  SearchBatchRequestDto,
  SUBJECTS,
  TrawlError,
  UrlBatchRequestDto,
  type BatchJob,
  type TaskRecord,
  type TaskSubmitReply,
} from '@trawl/contracts';
import { MessagingClient } from '@trawl/messaging';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../http/api-key.guard.js';
import { RawJson } from '../http/raw-json.js';
import { ApiOperationDoc } from './api-docs.js';

/** The one member of a submission's reply (a compile error here if TaskSubmitReply ever gains another). */
const JOBS_KEY: keyof TaskSubmitReply & 'jobs' = 'jobs';
type OnlyJobs = Exclude<keyof TaskSubmitReply, 'jobs'> extends never ? true : false;
const ONLY_JOBS: OnlyJobs = true;
void ONLY_JOBS;

/** Submitting a batch may bulk-add 10,000 jobs; allow it this long. */
const SUBMIT_DEADLINE_MS = 30_000;
const LOOKUP_DEADLINE_MS = 5_000;
/** `Retry-After` (seconds) when a key's cap of outstanding jobs refuses a batch: time for some of its jobs to finish. */
const OUTSTANDING_RETRY_AFTER_SEC = 30;

/** The submitting key (the tasks' owner) and its own cap of outstanding jobs, when the key store gives it one. */
function ownerOf(req: AuthenticatedRequest): { apiKeyId?: string; maxOutstanding?: number } {
  const principal = req.principal;
  if (!principal) return {};
  const cap = principal.limits.outstanding;
  return { apiKeyId: principal.id, ...(cap !== undefined ? { maxOutstanding: cap } : {}) };
}

/**
 * A submission refused with RATE_LIMITED (the key's cap of queued plus running jobs, TASK_MAX_OUTSTANDING_PER_KEY) is
 * answered with `Retry-After`, as the gateway's own rate limits are.
 */
async function withRetryAfter<T>(reply: FastifyReply, submit: Promise<T>): Promise<T> {
  try {
    return await submit;
  } catch (e) {
    if (e instanceof TrawlError && e.code === 'RATE_LIMITED')
      void reply.header('retry-after', OUTSTANDING_RETRY_AFTER_SEC);
    throw e;
  }
}

/** Asynchronous batches and task lookup: forwarded to task-service, which owns job state. */
@ApiTags('tasks')
@Controller('extractTask')
export class TasksController {
  constructor(private readonly messaging: MessagingClient) {}

  @Post('batch/maps')
  @HttpCode(200)
  @ApiOperationDoc(
    'Submit a maps batch',
    'One job per call; each query runs as a child; the outcome goes to the webhook.',
  )
  async maps(
    @Body() body: MapsBatchRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<BatchJob[]> {
    const reply = await withRetryAfter(
      res,
      this.messaging.send(
        SUBJECTS.taskSubmit,
        { kind: 'maps', request: body, ...ownerOf(req) },
        { timeoutMs: SUBMIT_DEADLINE_MS },
      ),
    );
    return reply.jobs;
  }

  @Post('batch/search')
  @HttpCode(200)
  @ApiOperationDoc('Submit a web-search batch', 'One job per call; each query runs as a child.')
  async search(
    @Body() body: SearchBatchRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<BatchJob[]> {
    const reply = await withRetryAfter(
      res,
      this.messaging.send(
        SUBJECTS.taskSubmit,
        { kind: 'search', request: body, ...ownerOf(req) },
        { timeoutMs: SUBMIT_DEADLINE_MS },
      ),
    );
    return reply.jobs;
  }

  @Post('batch')
  @HttpCode(200)
  @ApiOperationDoc('Submit a URL batch', 'One job per URL; each outcome goes to the webhook.')
  async urls(
    @Body() body: UrlBatchRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<RawJson> {
    // Up to 10,000 job objects (4.7 MB): forwarded as JSON text, written once into the envelope (RawJson).
    const reply = await withRetryAfter(
      res,
      this.messaging.sendRaw(
        SUBJECTS.taskSubmit,
        { kind: 'url', request: body, ...ownerOf(req) },
        { timeoutMs: SUBMIT_DEADLINE_MS },
      ),
    );
    return RawJson.onlyArrayMember(reply, JOBS_KEY);
  }

  @Get(':jobId')
  @ApiParam({ name: 'jobId', description: 'Job id from a batch submission.' })
  @ApiOperationDoc('Look up a task', 'Only the key that submitted a task finds it; any other key gets 404.')
  lookup(@Param('jobId') jobId: string, @Req() req: AuthenticatedRequest): Promise<TaskRecord> {
    // The rule task-service applies too: an id it would refuse is refused here, with the same message.
    if (!JOB_ID_PATTERN.test(jobId)) throw new TrawlError('VALIDATION_FAILED', JOB_ID_RULE, { field: 'jobId' });
    return this.messaging.send(
      SUBJECTS.taskGet,
      { jobId, apiKeyId: req.principal?.id },
      { timeoutMs: LOOKUP_DEADLINE_MS },
    );
  }
}
