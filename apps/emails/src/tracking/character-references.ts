/**
 * The named references that end with `;` and stand for ASCII (those a URL is
 * written with: `https&colon;//`, `&sol;`), with `&nbsp;`; the Latin-1 ones
 * follow from LEGACY below.
 */
const ASCII_REFERENCES = {
  Tab: '\t', NewLine: '\n', excl: '!', quot: '"', QUOT: '"', num: '#', dollar: '$', percnt: '%', amp: '&', AMP: '&', apos: "'",
  lpar: '(', rpar: ')', ast: '*', midast: '*', plus: '+', comma: ',', period: '.', sol: '/', colon: ':', semi: ';', lt: '<', LT: '<',
  equals: '=', gt: '>', GT: '>', quest: '?', commat: '@', lsqb: '[', lbrack: '[', bsol: '\\', rsqb: ']', rbrack: ']', Hat: '^',
  lowbar: '_', UnderBar: '_', grave: '`', DiacriticalGrave: '`', lcub: '{', lbrace: '{', verbar: '|', vert: '|', VerticalLine: '|',
  rcub: '}', rbrace: '}', NonBreakingSpace: '\u00a0',
};

/** U+00A0 to U+00FF, in order: the Latin-1 references HTML honours even without their `;`. */
const LATIN_1 = (
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para ' +
  'middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute ' +
  'Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute ' +
  'THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ' +
  'ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml'
).split(' ');

/** The references HTML decodes without a `;` (its legacy set): Latin-1, and `&amp`, `&lt`, `&gt`, `&quot` in both cases, `&COPY`, `&REG`. */
// Maps, not objects: a name such as `constructor` must find nothing.
const LEGACY = new Map<string, string>(
  LATIN_1.map((name, index): [string, string] => [name, String.fromCodePoint(0xa0 + index)]).concat(
    Object.entries({ amp: '&', AMP: '&', lt: '<', LT: '<', gt: '>', GT: '>', quot: '"', QUOT: '"', COPY: '\u00a9', REG: '\u00ae' }),
  ),
);

const WITH_SEMICOLON = new Map<string, string>([...LEGACY, ...Object.entries(ASCII_REFERENCES)]);

/**
 * What a numeric reference to 0x80–0x9F stands for (HTML §13.2.5.80): the
 * Windows-1252 character of that byte (`&#150;` is –), as documents mislabelled
 * Latin-1 meant it; the five bytes Windows-1252 leaves undefined stay C1 controls.
 */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** The character a numeric reference stands for, as the HTML parser puts it in. */
function numericReference(codePoint: number): string {
  // What the parser puts in place of NUL, a surrogate or a number past Unicode.
  if (codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return '\uFFFD';
  return codePoint >= 0x80 && codePoint <= 0x9f ? WINDOWS_1252_C1[codePoint - 0x80] : String.fromCodePoint(codePoint);
}

const REFERENCE = /&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([A-Za-z][A-Za-z0-9]*))(;?)/g;

/**
 * An attribute value as a browser reads it, its character references
 * decoded (HTML §13.2.5.72–80); null when it holds a named reference this
 * table does not know (`&hellip;`), which may stand for a character we cannot
 * tell, so that a link is never signed for a URL the reader would not have
 * followed. Numeric references count even without their `;`; a named one
 * without it only from the legacy set, and in an attribute not before `=` or
 * a letter or digit (`?x=1&copy=2` keeps its `&copy`).
 */
export function decodeAttributeValue(value: string): string | null {
  let unknown = false;
  const decoded = value.replace(REFERENCE, (reference, decimal: string | undefined, hex: string | undefined, name: string | undefined, semicolon: string, at: number) => {
    if (name !== undefined) {
      if (semicolon) {
        const known = WITH_SEMICOLON.get(name);
        if (known === undefined) unknown = true;
        return known ?? reference;
      }
      const following = value[at + reference.length];
      const legacy = LEGACY.get(name);
      return legacy !== undefined && following !== '=' ? legacy : reference;
    }
    return numericReference(decimal !== undefined ? Number(decimal) : parseInt(hex!, 16));
  });
  return unknown ? null : decoded;
}
