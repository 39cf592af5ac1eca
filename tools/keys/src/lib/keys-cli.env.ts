import { IsString, Matches } from 'class-validator';

/** What the keys CLI reads from the environment. */
export class KeysCliEnv {
  /** Redis of the key store (the gateway's REDIS_URL). */
  @IsString()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be redis://host:port (or rediss://)' })
  REDIS_URL: string = 'redis://127.0.0.1:6379';
}
