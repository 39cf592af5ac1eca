import { BATCH_SCRAPE_EVENTS, CRAWL_EVENTS, type OutcomeEvent } from './crawl.types.js';
import { BatchWebhookEventDto, CrawlWebhookEventDto } from './dto/crawl-webhook-event.dto.js';
import { TaskFinishedEventDto } from './dto/task-finished-event.dto.js';
import { parseDto } from './dto.parser.js';

/**
 * Checks a message of the outcome stream (`task.finished.v1`): a crawl event (`event` one of CRAWL_EVENTS, checked by
 * CrawlWebhookEventDto), a URL batch's (BATCH_SCRAPE_EVENTS, BatchWebhookEventDto) or else a task's outcome
 * (TaskFinishedEventDto). Throws VALIDATION_FAILED naming the bad field.
 */
export function parseOutcomeEvent(input: unknown): OutcomeEvent {
  const event = typeof input === 'object' && input !== null ? (input as { event?: unknown }).event : undefined;
  if ((BATCH_SCRAPE_EVENTS as readonly unknown[]).includes(event)) return parseDto(BatchWebhookEventDto, input);
  return (CRAWL_EVENTS as readonly unknown[]).includes(event)
    ? parseDto(CrawlWebhookEventDto, input)
    : parseDto(TaskFinishedEventDto, input);
}

/** Whether `input` is a message of the outcome stream (parseOutcomeEvent accepts it). */
export function isOutcomeEvent(input: unknown): boolean {
  try {
    parseOutcomeEvent(input);
    return true;
  } catch {
    return false;
  }
}
