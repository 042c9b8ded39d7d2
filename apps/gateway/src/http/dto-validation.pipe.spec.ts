import { ArgumentMetadata } from '@nestjs/common';
import { ListQueryDto } from '@mailroom/contracts';
import { DomainError, MESSAGE_QUOTE_MAX_LENGTH } from '@mailroom/errors';
import { DtoValidationPipe } from './dto-validation.pipe';

const QUERY: ArgumentMetadata = { type: 'query', metatype: ListQueryDto };

function problemOf(query: Record<string, unknown>): string | null {
  try {
    new DtoValidationPipe().transform(query, QUERY);
    return null;
  } catch (error) {
    return (error as DomainError).message;
  }
}

describe(DtoValidationPipe.name, () => {
  it('names a repeated query parameter as messages write names: JSON-escaped when it holds CR/LF, cut when long', () => {
    expect(problemOf({ limit: ['10', '20'] })).toBe('limit: must be given once, not 2 times');
    expect(problemOf({ 'a\r\nb': ['1', '2'] })).toBe('"a\\r\\nb": must be given once, not 2 times');
    expect(problemOf({ ['p'.repeat(10_000)]: ['1', '2'] })).toBe(`"${'p'.repeat(MESSAGE_QUOTE_MAX_LENGTH)}…" (10000 characters): must be given once, not 2 times`);
  });
});
