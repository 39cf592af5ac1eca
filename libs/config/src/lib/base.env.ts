import { IsIn, IsString, Matches } from 'class-validator';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables every service reads. */
export class BaseEnv {
  /** NATS server URL(s), comma-separated. */
  @IsString()
  @Matches(/^(nats|tls|ws|wss):\/\/[^,\s]+(,(nats|tls|ws|wss):\/\/[^,\s]+)*$/, {
    message: 'NATS_URL must be nats://host:port (several comma-separated)',
  })
  NATS_URL: string = 'nats://127.0.0.1:4222';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** Name of this instance in logs and `edgeId`; defaults to the hostname and pid. */
  @IsString()
  INSTANCE_ID: string = '';
}
