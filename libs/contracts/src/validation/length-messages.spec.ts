import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import * as contracts from '../index';

const dtoClasses = Object.values(contracts).filter((value): value is new () => object => typeof value === 'function' && /Dto$/.test(value.name));

/** Each length or count rule of an exported DTO, with a value that breaks it (too long, or too short where it has a minimum). */
const cases = dtoClasses.flatMap((cls) =>
  getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .flatMap((meta) => {
      const [first, second] = meta.constraints ?? [];
      const wrap = (value: unknown) => (meta.each ? [value] : value);
      const label = `${cls.name}.${meta.propertyName} ${meta.name}`;
      if (meta.name === 'maxLength') return [{ label: `${label} too long`, cls, meta, value: wrap('x'.repeat(first + 1)), says: `must be at most ${first} characters` }];
      if (meta.name === 'isLength') {
        const tooLong = { label: `${label} too long`, cls, meta, value: wrap('x'.repeat(second + 1)), says: `must be at most ${second} characters` };
        return first === 1 ? [{ label: `${label} empty`, cls, meta, value: wrap(''), says: 'must not be empty' }, tooLong] : [tooLong];
      }
      if (meta.name === 'arrayMaxSize') return [{ label: `${label} too many`, cls, meta, value: Array.from({ length: first + 1 }, () => 'a'), says: String(first) }];
      return [];
    }),
);

/**
 * A value too long or a list too long is refused in Mailroom's words on every
 * route (`name: must be at most 100 characters`), not class-validator's on
 * some (`must be shorter than or equal to 100 characters`, `must be longer
 * than or equal to 1 characters`, `must contain no more than 8 elements`).
 */
describe('length and count rules', () => {
  it('are found', () => {
    expect(cases.map(({ label }) => label)).toEqual(expect.arrayContaining(['ApiKeyCreateDto.name isLength empty', 'EmailSendDto.subject isLength too long', 'SuppressionCreateDto.email maxLength too long']));
  });

  it.each(cases.map((item) => [item.label, item] as const))('%s is refused in the house wording', (_, { cls, meta, value, says }) => {
    const errors = validateSync(plainToInstance(cls, { [meta.propertyName]: value }), { whitelist: true, forbidNonWhitelisted: true });
    const message = errors.find((error) => error.property === meta.propertyName)?.constraints?.[meta.name!] ?? '';
    expect(message).not.toMatch(/or equal to|no more than|elements/);
    expect(message).toContain(says);
  });
});
