import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { parseDto } from '@trawl/contracts';

/**
 * Builds and validates every `@Body()` whose declared type is a DTO class of the contract: spec defaults applied,
 * unknown fields refused, the first bad field named (400 VALIDATION_FAILED).
 */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body' || !metadata.metatype || !isDtoClass(metadata.metatype)) return value;
    return parseDto(metadata.metatype as new () => object, value ?? {});
  }
}

function isDtoClass(type: unknown): boolean {
  return typeof type === 'function' && ![String, Number, Boolean, Object, Array].includes(type as never);
}
