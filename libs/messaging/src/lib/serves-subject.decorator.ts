import { MessagePattern } from '@nestjs/microservices';
import { subjectRow, type RpcRequest, type RpcSubject } from '@trawl/contracts';

/**
 * Makes a controller method the handler of `subject`, as its row of SUBJECT_TABLE says: Nest's `@MessagePattern` on the
 * subject, and the payload checked against the row's request DTO before the method runs (a bad payload is answered
 * VALIDATION_FAILED naming the field, by the WireErrorFilter). The method receives the parsed request, defaults
 * applied. The service must be the row's `servedBy`: DrainingNatsServer refuses to start otherwise.
 */
export function ServesSubject<S extends RpcSubject>(subject: S) {
  const row = subjectRow(subject);
  if (row?.kind !== 'rpc') throw new Error(`${subject} is not a request/reply subject of SUBJECT_TABLE`);
  return <T extends (request: RpcRequest<S>, ...rest: never[]) => unknown>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<T>,
  ): void => {
    const handler = descriptor.value;
    if (typeof handler !== 'function') throw new Error(`@ServesSubject(${subject}) decorates a method`);
    const checked = function (this: unknown, payload: unknown, ...rest: unknown[]): unknown {
      return (handler as unknown as (...args: unknown[]) => unknown).call(this, row.request.parse(payload), ...rest);
    };
    Object.defineProperty(checked, 'name', { value: handler.name });
    descriptor.value = checked as unknown as T;
    MessagePattern(subject)(target, key, descriptor);
  };
}
