import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsNumber, IsString, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';
import type { WebhookDeadLetter } from '../task.types.js';
import { TaskFinishedEventDto } from './task-finished-event.dto.js';

/** JetStream payload of `task.delivery-failed.v1` (WebhookDeadLetter), as the dead-letter CLI reads it. */
export class WebhookDeadLetterDto implements WebhookDeadLetter {
  @ValidateNested()
  @Type(() => TaskFinishedEventDto)
  outcome!: TaskFinishedEventDto;

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
