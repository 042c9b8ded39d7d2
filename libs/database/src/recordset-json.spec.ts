import { recordsetJson } from './recordset-json';

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
});
