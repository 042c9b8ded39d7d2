import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { fieldName, validateDto } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Object, Array]);

/** Validates @Body() and @Query() against their DTO class; errors name the field (422 validation_error). */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if ((metadata.type !== 'body' && metadata.type !== 'query') || !metadata.metatype || PRIMITIVES.has(metadata.metatype)) {
      return value;
    }
    const what = metadata.type === 'body' ? 'body' : 'query';
    if (metadata.type === 'query') refuseRepeatedParameters(value);
    return validateDto(metadata.metatype as new () => object, value ?? (metadata.type === 'query' ? {} : value), what);
  }
}

/** Every query parameter is a single value (tags are comma-separated); `?limit=10&limit=20` arrives as an array. */
function refuseRepeatedParameters(query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw DomainError.validation(fieldName(name), `must be given once, not ${value.length} times`);
  }
}
