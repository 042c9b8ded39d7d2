import { recordsetJson, rowsetJson } from './recordset-json';

describe(recordsetJson.name, () => {
  it('leaves NULL and undefined fields out, but keeps a JSON value whole, nulls inside included', () => {
    const json = recordsetJson([{ id: 'a', code: null, reply: undefined, payload: { note: null, list: [null] } }]);
    expect(JSON.parse(json)).toEqual([{ id: 'a', payload: { note: null, list: [null] } }]);
  });

  it('writes each Date as its ISO text, when records share an instant or change it, and an invalid one as NULL', () => {
    const first = new Date('2030-01-02T03:04:05.678Z');
    const second = new Date('2031-05-06T07:08:09.010Z');
    const json = recordsetJson([{ at: first, due: first }, { at: first, due: second }, { at: new Date(Number.NaN), due: second }]);
    expect(JSON.parse(json)).toEqual([
      { at: '2030-01-02T03:04:05.678Z', due: '2030-01-02T03:04:05.678Z' },
      { at: '2030-01-02T03:04:05.678Z', due: '2031-05-06T07:08:09.010Z' },
      { due: '2031-05-06T07:08:09.010Z' },
    ]);
  });

  it('turns a lone surrogate into U+FFFD, at the top level and inside a JSON value, and leaves pairs and escaped backslashes alone', () => {
    const json = recordsetJson([{ subject: 'a\uD800b', payload: { text: 'x\uDC00' }, emoji: '😀', literal: '\\uD800' }]);
    expect(JSON.parse(json)).toEqual([{ subject: 'a\uFFFDb', payload: { text: 'x\uFFFD' }, emoji: '😀', literal: '\\uD800' }]);
  });

  it('writes the text JSON.stringify writes for the same records, empty ones and awkward values included', () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    const records = [
      { id: 'a"b\\c\n', count: -0, ratio: 1.5e-7, flag: false, list: ['x', 1, null], nested: { at, deep: [{ q: '\u2028' }] }, at },
      {},
      { skipped: () => 1, symbol: Symbol('s'), nan: Number.NaN, text: 'é😀' },
    ];
    const expected = JSON.stringify([
      { id: 'a"b\\c\n', count: -0, ratio: 1.5e-7, flag: false, list: ['x', 1, null], nested: { at, deep: [{ q: '\u2028' }] }, at },
      {},
      { nan: Number.NaN, text: 'é😀' },
    ]);
    expect(recordsetJson(records)).toBe(expected);
    const columns = ['id', 'count', 'ratio', 'flag', 'list', 'nested', 'at'];
    const rows = [columns.map((name) => (records[0] as Record<string, unknown>)[name]), columns.map(() => null)];
    expect(rowsetJson(rows, columns, [0, 1, 2, 3, 4, 5, 6])).toBe(JSON.stringify([records[0], {}]));
    expect(rowsetJson(rows, columns, [6, 0])).toBe(JSON.stringify([{ at, id: records[0].id }, {}]));
  });
});
