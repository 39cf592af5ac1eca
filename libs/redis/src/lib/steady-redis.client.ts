import { Redis, type Command, type RedisOptions } from 'ioredis';

/**
 * ioredis's `Redis`, kept connected until it is closed. ioredis ends a client for good (status `end`: every command
 * after it fails at once with "Connection is closed.") when one of its connect attempts fails rather than retrying,
 * and a Sentinel client's attempt fails so when a failover is announced while it reconnects: the failover detector
 * of the lost connection, still subscribed to `+switch-master`, closes the connector while it asks a Sentinel for the
 * master, and the answer then finds the connector closed. A replica would lose its Redis for good in a failover the
 * rest of the fleet rode out. This client, ended without `disconnect()` or `quit`, connects again after
 * its own reconnect delay (`retryStrategy`); its duplicates are of the same kind. `createRedisClient` builds every
 * standalone and Sentinel client as one.
 */
export class SteadyRedis extends Redis {
  private closeRequested = false;
  private revives = 0;

  /** As `new Redis(options)` or `new Redis(url, options)` (the URL's settings win). */
  constructor(...args: [RedisOptions] | [string, RedisOptions]) {
    super(...(args as [string, RedisOptions]));
    this.on('ready', () => (this.revives = 0));
    this.on('end', () => {
      if (this.closeRequested) return;
      const delay = this.options.retryStrategy?.(++this.revives);
      const timer = setTimeout(
        () => {
          if (!this.closeRequested && this.status === 'end') this.connect().catch(() => undefined);
        },
        typeof delay === 'number' ? delay : 1000,
      );
      timer.unref();
    });
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.closeRequested = true;
    super.disconnect(reconnect);
  }

  /** `QUIT` closes the connection on purpose too. */
  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    if (command.name === 'quit') this.closeRequested = true;
    return super.sendCommand(command, stream);
  }

  override duplicate(override?: Partial<RedisOptions>): SteadyRedis {
    return new SteadyRedis({ ...this.options, ...override });
  }
}
