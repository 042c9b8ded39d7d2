import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import * as contracts from '../index';

/** Every DTO class the contracts export, by name. */
const dtoClasses = Object.values(contracts).filter((value): value is new () => object => typeof value === 'function' && /Dto$/.test(value.name));

/** Each field checked against a fixed list of values, with the values and whether every item of an array is checked. */
const enumFields = dtoClasses.flatMap((cls) =>
  getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .filter((meta) => meta.name === 'isIn')
    .map((meta) => ({ dto: cls.name, cls, property: meta.propertyName, values: meta.constraints[0] as unknown[], each: meta.each })),
);

/** What validation answers for the field alone, without the property name the gateway puts in front. */
function complaintAbout(cls: new () => object, property: string, value: unknown): string | undefined {
  const errors = validateSync(plainToInstance(cls, { [property]: value }), { whitelist: true, forbidNonWhitelisted: true });
  const message = errors.find((error) => error.property === property)?.constraints?.isIn;
  return message?.replace(new RegExp(`^(each value in )?${property} `), '$1');
}

/**
 * A caller who sends a value outside a list reads the list the same way on
 * every route: `status: must be one of queued, sent, …`. class-validator's own
 * wording ("must be one of the following values: hour, day") and ad-hoc ones
 * ("must be active or disabled") made two resources answer one mistake in two
 * ways.
 */
describe('fields that take one of a list of values', () => {
  it('are found', () => {
    expect(enumFields.map(({ dto, property }) => `${dto}.${property}`)).toEqual(
      expect.arrayContaining(['AnalyticsQueryDto.interval', 'ApiKeyCreateDto.mode', 'WebhookUpdateDto.status', 'EmailListQueryDto.status']),
    );
  });

  it.each(enumFields.map((field) => [`${field.dto}.${field.property}`, field] as const))('%s names its values as every list field does', (_, field) => {
    const wrong = '\u2603';
    const expected = `${field.each ? 'each value ' : ''}must be one of ${field.values.join(', ')}`;
    expect(complaintAbout(field.cls, field.property, field.each ? [wrong] : wrong)).toBe(expected);
  });

  it('words one rule the same wherever it applies: the tags of the email list and of analytics', () => {
    const tags = (cls: new () => object) =>
      validateSync(plainToInstance(cls, { tags: 'a,,b' }), { whitelist: true, forbidNonWhitelisted: true }).find((error) => error.property === 'tags')?.constraints;
    expect(tags(contracts.AnalyticsQueryDto)).toEqual(tags(contracts.EmailListQueryDto));
  });
});
