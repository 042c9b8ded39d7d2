import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, ValidateNested } from 'class-validator';
import { findNonObjectNested } from './find-non-object-nested';

class SwitchesDto {
  @IsOptional()
  @IsBoolean()
  on?: boolean;
}

class ItemDto {
  @IsString()
  label: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => SwitchesDto)
  switches?: SwitchesDto;
}

class ProbeDto {
  @IsOptional()
  @ValidateNested()
  @Type(() => SwitchesDto)
  switches?: SwitchesDto;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => ItemDto)
  items?: ItemDto[];
}

const problemOf = (plain: object) => findNonObjectNested(plainToInstance(ProbeDto, plain));

describe(findNonObjectNested.name, () => {
  it('passes objects where DTOs are declared, and leaves missing and null fields to their own rules', () => {
    expect(problemOf({ switches: { on: true }, items: [{ label: 'a', switches: {} }, { label: 'b' }] })).toBeNull();
    expect(problemOf({})).toBeNull();
    expect(problemOf({ switches: null, items: [{ label: 'a', switches: null }] })).toBeNull();
  });

  it('refuses an array where one object is declared, which class-validator walked into (an empty one passed)', () => {
    expect(problemOf({ switches: [] })).toBe('switches: must be an object');
    expect(problemOf({ switches: [{ on: true }] })).toBe('switches: must be an object');
  });

  it('refuses a value of another type where an object is declared', () => {
    expect(problemOf({ switches: 'yes' })).toBe('switches: must be an object');
    expect(problemOf({ switches: 1 })).toBe('switches: must be an object');
  });

  it('names the element of an array of DTOs that is no object, arrays included', () => {
    expect(problemOf({ items: [[{ label: 'a' }]] })).toBe('items[0]: must be an object');
    expect(problemOf({ items: [{ label: 'a' }, 1] })).toBe('items[1]: must be an object');
    expect(problemOf({ items: [{ label: 'a' }, null] })).toBe('items[1]: must be an object');
  });

  it('wants an array where an array of DTOs is declared', () => {
    expect(problemOf({ items: { label: 'a' } })).toBe('items: must be an array');
  });

  it('looks inside nested DTOs, with their paths', () => {
    expect(problemOf({ items: [{ label: 'a' }, { label: 'b', switches: [] }] })).toBe('items[1].switches: must be an object');
  });
});
