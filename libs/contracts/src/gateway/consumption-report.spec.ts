import { decodeConsumptionReport, encodeConsumptionReport } from './consumption-report';

const bytes = (text: string) => new TextEncoder().encode(text);

describe(decodeConsumptionReport.name, () => {
  it('reads what encodeConsumptionReport wrote', () => {
    const report = { replica: 'r1', counts: { key_a: 3, key_b: 1 } };
    expect(decodeConsumptionReport(encodeConsumptionReport(report))).toEqual(report);
  });

  it.each(['not json', 'null', '[]', '{"counts":{}}', '{"replica":"r1"}', '{"replica":"r1","counts":null}', '{"replica":"r1","counts":[1]}'])(
    'is null for %s',
    (text) => expect(decodeConsumptionReport(bytes(text))).toBeNull(),
  );

  it('drops counts that are not positive finite numbers, keeping the others', () => {
    expect(decodeConsumptionReport(bytes('{"replica":"r1","counts":{"a":"many","b":-5,"c":0,"d":null,"e":2}}'))).toEqual({ replica: 'r1', counts: { e: 2 } });
  });
});
