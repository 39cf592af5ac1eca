import 'reflect-metadata';
import {
  IsInt,
  IsNumber,
  IsString,
  MaxLength,
  Min,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import type { OutcomeEvent } from '../crawl.types.js';
import { isOutcomeEvent } from '../outcome-event.parser.js';
import type { WebhookDeadLetter } from '../task.types.js';

/** `outcome` of a dead letter: what the outcome stream carries (a task outcome or a crawl event), checked as there (a batch event too). */
@ValidatorConstraint({ name: 'isOutcomeEvent' })
export class IsOutcomeEvent implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isOutcomeEvent(value);
  }

  defaultMessage(): string {
    return 'outcome must be a task outcome (TaskFinishedEventDto), a crawl event (CrawlWebhookEventDto) or a batch event (BatchWebhookEventDto)';
  }
}

/** JetStream payload of `task.delivery-failed.v1` (WebhookDeadLetter), as the dead-letter CLI reads it. */
export class WebhookDeadLetterDto implements WebhookDeadLetter {
  @Validate(IsOutcomeEvent)
  outcome!: OutcomeEvent;

  @IsString()
  @MaxLength(4096)
  reason!: string;

  @IsInt()
  @Min(0)
  attempts!: number;

  @ValidateIf((o: WebhookDeadLetterDto) => o.lastStatus !== null)
  @IsInt()
  lastStatus!: number | null;

  @IsNumber()
  deadLetteredAt!: number;
}
