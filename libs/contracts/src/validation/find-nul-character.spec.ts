import { findNulCharacter } from './find-nul-character';

describe('findNulCharacter', () => {
  it('names the nested field whose string holds U+0000', () => {
    expect(findNulCharacter({ subject: 'ok', attachments: [{ filename: 'a' }, { filename: 'b\u0000c' }] })).toBe('attachments[1].filename');
  });

  it('names a map whose key holds U+0000', () => {
    expect(findNulCharacter({ metadata: { 'a\u0000': 'x' } })).toBe('metadata.a\u0000');
  });

  it('finds nothing in clean input, numbers, booleans and null', () => {
    expect(findNulCharacter({ to: ['a@b.c'], n: 1, t: true, z: null, text: 'line\nbreak' })).toBeNull();
  });
});
