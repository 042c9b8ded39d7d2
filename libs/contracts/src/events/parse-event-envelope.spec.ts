import { parseEventEnvelope } from './parse-event-envelope';

const good = { id: 'evt_01JD7X3Q9Y5T4V2W8K6M0N1P2R', type: 'email.complained', createdAt: '2026-11-22T08:15:00.000Z', mode: 'test', data: { recipient: 'a@example.com' } };
const problemOf = (value: unknown): string | null => {
  const parsed = parseEventEnvelope(typeof value === 'string' ? value : JSON.stringify(value));
  return 'problem' in parsed ? parsed.problem : null;
};

describe(parseEventEnvelope.name, () => {
  it('reads a well-formed envelope, and a missing mode as live', () => {
    expect(parseEventEnvelope(JSON.stringify(good))).toEqual({ envelope: good });
    const { mode: _mode, ...withoutMode } = good;
    expect(parseEventEnvelope(JSON.stringify(withoutMode))).toEqual({ envelope: { ...good, mode: 'live' } });
  });

  it.each([
    ['not JSON', '{"id":', /^not JSON$/],
    ['an array', [], /^not a JSON object$/],
    ['null', null, /^not a JSON object$/],
    ['a numeric id', { ...good, id: 7 }, /^id: /],
    ['an id too long for a key', { ...good, id: 'e'.repeat(201) }, /^id: /],
    ['an id with a space, which no header can carry as it is', { ...good, id: 'evt 1' }, /^id: /],
    ['an id with a character outside ASCII', { ...good, id: 'evt_ü' }, /^id: /],
    ['an empty type', { ...good, type: '' }, /^type: /],
    ['an unknown mode', { ...good, mode: 'prod' }, /^mode: /],
    ['a createdAt that is no date', { ...good, createdAt: '9999-99-99' }, /^createdAt: /],
    ['a createdAt that is words', { ...good, createdAt: 'yesterday' }, /^createdAt: /],
    ['a createdAt past year 9999', { ...good, createdAt: '+010000-01-01T00:00:00Z' }, /^createdAt: /],
    ['no data', { ...good, data: undefined }, /^data: /],
    ['data as a list', { ...good, data: ['a'] }, /^data: /],
    ['a NUL in a tag', { ...good, data: { tags: ['ok', 'b\u0000d'] } }, /^data\.tags\[1\]: .*NUL/],
    ['data nested 100,000 deep', JSON.stringify(good).replace('"recipient"', `"deep":${'['.repeat(100_000)}${']'.repeat(100_000)},"recipient"`), /^data: must not nest/],
  ])('refuses %s', (_what, value, problem) => {
    expect(problemOf(value)).toMatch(problem);
  });
});
