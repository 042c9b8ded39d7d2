import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { validateDto } from '@mailroom/contracts';

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Object, Array]);

/** Validates @Body() and @Query() against their DTO class; errors name the field (422 validation_error). */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if ((metadata.type !== 'body' && metadata.type !== 'query') || !metadata.metatype || PRIMITIVES.has(metadata.metatype)) {
      return value;
    }
    const what = metadata.type === 'body' ? 'body' : 'query';
    return validateDto(metadata.metatype as new () => object, value ?? (metadata.type === 'query' ? {} : value), what);
  }
}
