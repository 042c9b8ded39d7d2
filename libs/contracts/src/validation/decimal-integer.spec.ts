import 'reflect-metadata';
import { ListQueryDto } from '../common/list-query.dto';
import { SuppressionListQueryDto } from '../emails/dto/suppression-list-query.dto';
import { asDecimalInteger } from './decimal-integer';
import { validateDto } from './validate-dto';

describe(asDecimalInteger.name, () => {
  it('reads decimal digits as a number', () => {
    expect(asDecimalInteger('10')).toBe(10);
    expect(asDecimalInteger('010')).toBe(10);
  });

  it.each(['0x10', '1e1', ' 10', '10 ', '+10', '-1', '1.5', '', 'ten', '１０'])('leaves %j as it is, for the integer rule to refuse', (value) => {
    expect(asDecimalInteger(value)).toBe(value);
  });

  it('leaves values that are no string alone', () => {
    expect(asDecimalInteger(10)).toBe(10);
    expect(asDecimalInteger(undefined)).toBeUndefined();
  });
});

describe('limit of the list queries', () => {
  it.each([ListQueryDto, SuppressionListQueryDto])('%p takes decimal digits and refuses other spellings of a number', (dto) => {
    expect(validateDto(dto, { limit: '16' }, 'query').limit).toBe(16);
    for (const limit of ['0x10', '1e1', ' 10', '0b1', '0o7']) {
      expect(() => validateDto(dto, { limit }, 'query')).toThrow('limit: must be an integer between 1 and 100');
    }
  });
});
