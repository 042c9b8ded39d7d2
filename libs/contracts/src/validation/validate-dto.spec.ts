import { ArrayMaxSize, IsArray, IsObject, IsString, Length, Matches, ValidateIf, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { MESSAGE_QUOTE_MAX_LENGTH } from '@mailroom/errors';
import { IsOmittable } from './is-omittable';
import { validateDto } from './validate-dto';

class ProbeItemDto {
  @IsString()
  label: string;
}

class ProbeDto {
  @IsOmittable()
  @IsString()
  @Length(1, 10)
  name?: string;

  /** null clears it. */
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsString()
  note?: string | null;

  @IsOmittable()
  @ValidateNested({ each: true })
  @Type(() => ProbeItemDto)
  items?: ProbeItemDto[];

  @IsOmittable()
  @IsString()
  @Length(1, 20)
  @Matches(/^[a-z]*$/, { message: 'must contain only a-z' })
  word?: string;

  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(2)
  @IsString({ each: true })
  @Matches(/^[a-z]*$/, { each: true, message: 'each value must contain only a-z' })
  words?: string[];

  @IsOmittable()
  @IsObject()
  labels?: Record<string, string>;
}

const problemOf = (body: unknown): string | null => {
  try {
    validateDto(ProbeDto, body);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe(validateDto.name, () => {
  it('lets an omittable field be left out, and a nullable one be null', () => {
    expect(problemOf({})).toBeNull();
    expect(problemOf({ note: null })).toBeNull();
  });

  it('says a required field is required, rather than quoting its first rule', () => {
    expect(problemOf({ items: [{}] })).toBe('items[0].label: is required');
  });

  it('refuses null for an omittable field, saying so rather than quoting a length rule', () => {
    expect(problemOf({ name: null })).toBe('name: must not be null');
  });

  it('names the field once, not twice as class-validator default messages would', () => {
    expect(problemOf({ name: '' })).toBe('name: must be longer than or equal to 1 characters');
    expect(problemOf({ note: 7 })).toBe('note: must be a string');
  });

  it('gives nested paths and refuses unknown fields', () => {
    expect(problemOf({ items: [{ label: 'a' }, { label: 3 }] })).toBe('items[1].label: must be a string');
    expect(problemOf({ nmae: 'typo' })).toBe('nmae: is not a known field');
    expect(problemOf([])).toBe('body: must be a JSON object');
  });

  it('names a field whose name is digits or empty as sent: only an array item is written [i]', () => {
    expect(problemOf({ 7: 'x' })).toBe('7: is not a known field');
    expect(problemOf({ '': 'x' })).toBe('"": is not a known field');
    expect(problemOf({ items: [{ label: 'a', 0: 'x' }] })).toBe('items[0].0: is not a known field');
  });

  it('writes a field name holding control characters or line separators JSON-escaped, so a message never carries them raw', () => {
    expect(problemOf({ 'fro\r\nm': 1 })).toBe('"fro\\r\\nm": is not a known field');
    expect(problemOf({ 'a\u2028b\u007fc\u0085': 1 })).toBe('"a\\u2028b\\u007fc\\u0085": is not a known field');
    expect(problemOf({ items: [{ label: 'a', 'x\ty': 'x' }] })).toBe('items[0]."x\\ty": is not a known field');
  });

  it('names a 100,000-character unknown field by its start and length, JSON-quoted, not whole', () => {
    const name = 'f'.repeat(100_000);
    expect(problemOf({ [name]: 1 })).toBe(`"${'f'.repeat(MESSAGE_QUOTE_MAX_LENGTH)}…" (100000 characters): is not a known field`);
    expect(problemOf({ items: [{ label: 'a', [name]: 1 }] })).toBe(`items[0]."${'f'.repeat(MESSAGE_QUOTE_MAX_LENGTH)}…" (100000 characters): is not a known field`);
  });

  it('says a value of the wrong type has the wrong type, rather than quoting a pattern or size rule it also fails', () => {
    expect(problemOf({ word: 123 })).toBe('word: must be a string');
    expect(problemOf({ word: ['abc'] })).toBe('word: must be a string');
    expect(problemOf({ words: 'abc' })).toBe('words: must be an array');
    expect(problemOf({ words: { a: 'b' } })).toBe('words: must be an array');
  });

  it('wants an object where a nested DTO is declared, rather than walking into an array or quoting class-validator', () => {
    expect(problemOf({ items: [[{ label: 'a' }]] })).toBe('items[0]: must be an object');
    expect(problemOf({ items: [{ label: 'a' }, 'b'] })).toBe('items[1]: must be an object');
    expect(problemOf({ items: 'b' })).toBe('items: must be an array');
  });

  it('still quotes the rule a value of the right type breaks', () => {
    expect(problemOf({ word: 'ABC' })).toBe('word: must contain only a-z');
    expect(problemOf({ word: '' })).toBe('word: must be longer than or equal to 1 characters');
    expect(problemOf({ words: ['a', 'b', 'c'] })).toBe('words: must contain no more than 2 elements');
    expect(problemOf({ words: ['A'] })).toBe('words: each value must contain only a-z');
    // class-validator's own message for an element names the field again ("each value in words must be a string").
    expect(problemOf({ words: ['a', 1] })).toBe('words: each value must be a string');
  });

  describe('keys named after members of Object.prototype', () => {
    it.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'])('refuses %s as an unknown field, at the top and nested', (key) => {
      expect(problemOf({ [key]: 'x' })).toBe(`${key}: is not a known field`);
      expect(problemOf({ items: [{ label: 'a', [key]: 'x' }] })).toBe(`items[0].${key}: is not a known field`);
    });

    it('keeps them as keys of a map, which class-transformer alone dropped (or crashed on, for constructor)', () => {
      const labels = { constructor: 'a', toString: 'b', valueOf: 'c', plain: 'd' };
      const dto = validateDto(ProbeDto, { labels });
      expect(JSON.parse(JSON.stringify(dto.labels))).toEqual(labels);
      expect(Object.getPrototypeOf(dto.labels)).toBe(Object.prototype);
    });

    it('leaves the body alone when it has none', () => {
      const dto = validateDto(ProbeDto, { name: 'n', labels: { a: 'b' } });
      expect(dto).toBeInstanceOf(ProbeDto);
      expect(dto.labels).toEqual({ a: 'b' });
    });
  });

  it('refuses a body nested too deep for its walks, naming the field, rather than overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(problemOf({ items: deep })).toBe('items: must not nest objects or arrays more than 32 levels deep');
  });
});
