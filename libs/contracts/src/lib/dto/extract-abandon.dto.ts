import 'reflect-metadata';
import { IsString, Matches, MaxLength } from 'class-validator';

/**
 * NATS payload of `extract.abandon.v1` (ADR 0043): the caller of a request stopped waiting for it (its task was
 * cancelled), so the replica running it may stop. `requestId` is the request's packet id, which the request carried
 * in its ABANDON_KEY_HEADER.
 */
export class ExtractAbandonDto {
  @IsString()
  @MaxLength(64)
  @Matches(/^[A-Za-z0-9-]+$/)
  requestId!: string;
}
