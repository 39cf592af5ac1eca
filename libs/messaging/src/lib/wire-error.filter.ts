import { Catch, Logger, type RpcExceptionFilter } from '@nestjs/common';
import { TrawlError, type WireError } from '@trawl/contracts';
import { throwError, type Observable } from 'rxjs';

/**
 * Turns whatever a message handler throws into the WireError reply `{ code, message, retryable }`. A TrawlError keeps
 * its code; anything else is logged and answered as INTERNAL, never with its stack.
 */
@Catch()
export class WireErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger(WireErrorFilter.name);

  catch(exception: unknown): Observable<WireError> {
    if (exception instanceof TrawlError) return throwError(() => exception.toWire());
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    const wire: WireError = { code: 'INTERNAL', message: 'internal error in the service', retryable: false };
    return throwError(() => wire);
  }
}
