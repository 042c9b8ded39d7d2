import { findUnstorableCharacter } from './find-unstorable-character';

const NUL = 'must not contain the NUL character (U+0000)';
const SURROGATE = 'must not contain an unpaired UTF-16 surrogate (\\uD800-\\uDFFF without its other half), which is no character';

describe(findUnstorableCharacter.name, () => {
  it('names the nested field whose string holds U+0000', () => {
    expect(findUnstorableCharacter({ subject: 'ok', attachments: [{ filename: 'a' }, { filename: 'b\u0000c' }] })).toBe(`attachments[1].filename: ${NUL}`);
  });

  it('names a map whose key holds U+0000, JSON-quoted so that the message does not carry the NUL', () => {
    expect(findUnstorableCharacter({ metadata: { 'a\u0000': 'x' } })).toBe(`metadata."a\\u0000": ${NUL}`);
  });

  it.each([
    ['a lone high surrogate', 'cut \ud83d'],
    ['a lone low surrogate', '\ude00 after'],
    ['two high surrogates', '\ud83d\ud83d\ude00'],
    ['halves in the wrong order', '\ude00\ud83d'],
  ])('names the field holding %s, in a value or a key (a key quoted with the half escaped, never raw)', (_what, text) => {
    expect(findUnstorableCharacter({ subject: text })).toBe(`subject: ${SURROGATE}`);
    expect(findUnstorableCharacter({ to: ['a@b.c', text] })).toBe(`to[1]: ${SURROGATE}`);
    // JSON.stringify writes half a pair as `\ud83d`, six ASCII characters.
    expect(findUnstorableCharacter({ metadata: { [text]: 'x' } })).toBe(`metadata.${JSON.stringify(text)}: ${SURROGATE}`);
  });

  it('finds nothing in clean input, whole surrogate pairs, numbers, booleans and null', () => {
    expect(findUnstorableCharacter({ to: ['a@b.c'], n: 1, t: true, z: null, text: 'line\nbreak', subject: '😀 \ud83d\ude00 ✓', 'é😀': '' })).toBeNull();
  });
});
