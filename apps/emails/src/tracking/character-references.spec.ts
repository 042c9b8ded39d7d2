import { decodeAttributeValue } from './character-references';

describe(decodeAttributeValue.name, () => {
  it('decodes numeric references as the HTML parser does, with or without their ;', () => {
    expect(decodeAttributeValue('&#65;&#x42;&#X43&#0000068;&#x00045x')).toBe('ABCDEx');
    // No digits: no reference, left as written.
    expect(decodeAttributeValue('&#;&#x;&#xg;&#')).toBe('&#;&#x;&#xg;&#');
    // NUL, a surrogate and a number past Unicode become U+FFFD; 0x80–0x9F the Windows-1252 character, but for its five holes.
    expect(decodeAttributeValue('&#0;&#xD800;&#xDFFF;&#x110000;&#99999999999999999999;')).toBe('\uFFFD'.repeat(5));
    expect(decodeAttributeValue('&#x80;&#x9F;&#x81;&#x8D;&#x8F;&#x90;&#x9D;&#153;')).toBe('\u20ac\u0178\u0081\u008d\u008f\u0090\u009d\u2122');
    expect(decodeAttributeValue('&#x1F600;&#xA0;&#x7F;')).toBe('\u{1F600}\u00a0\u007f');
  });

  it('decodes a legacy named reference without its ; only where an attribute value would (HTML §13.2.5.73)', () => {
    expect(decodeAttributeValue('?a=1&amp&b=2&copy;&lt')).toBe('?a=1&&b=2\u00a9<');
    // Followed by = or a letter or digit, it stays as written: `&copy=2` is a query parameter.
    expect(decodeAttributeValue('?x=1&copy=2&ampx=3&not1&frac123')).toBe('?x=1&copy=2&ampx=3&not1&frac123');
    expect(decodeAttributeValue('&frac12/&not/')).toBe('\u00bd/\u00ac/');
    // A name that needs its ; (no legacy form) is decoded only with it.
    expect(decodeAttributeValue('&colon;&colon')).toBe(':&colon');
  });

  it('gives null for a named reference it does not know, which may stand for a character it cannot tell', () => {
    expect(decodeAttributeValue('a&hellip;b')).toBeNull();
    expect(decodeAttributeValue('&constructor;')).toBeNull();
    expect(decodeAttributeValue('&notin;')).toBeNull();
  });
});
