import fc from 'fast-check';
import { decodeAttributeValue } from './character-references';
import { scanMarkup } from './html-markup';

interface SaxTag {
  tagName: string;
  attrs: { name: string; value: string }[];
  sourceCodeLocation: { startOffset: number; endOffset: number };
}
interface SaxParser {
  on(event: 'startTag' | 'endTag', listener: (tag: SaxTag) => void): void;
  end(html: string): void;
}
// parse5's tokenizer, driven as its tree builder would drive it (raw text, RCDATA, script data and its escapes): the reference.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SAXParser = require('parse5-sax-parser') as new (options: { sourceCodeLocationInfo: boolean }) => SaxParser;

/** Where a tag is: an end tag by where it ends only, since parse5 starts one that ends escaped script data (`<script><!--</script>`) where the escape began. */
const where = (kind: string, start: number, end: number) => (kind === 'end' ? `…-${end}` : `${start}-${end}`);

/** Each tag as `kind name start-end` and, for a start tag, its attributes (a repeated name's first, its value decoded), as parse5 tokenizes the html. */
function parse5Tags(html: string): string[] {
  const parser = new SAXParser({ sourceCodeLocationInfo: true });
  const tags: string[] = [];
  const describe = (kind: string) => (tag: SaxTag) => {
    const attributes = kind === 'start' ? tag.attrs.map((attribute) => `${attribute.name}=${attribute.value}`) : [];
    tags.push([`${kind} ${tag.tagName} ${where(kind, tag.sourceCodeLocation.startOffset, tag.sourceCodeLocation.endOffset)}`, ...attributes].join(' '));
  };
  parser.on('startTag', describe('start'));
  parser.on('endTag', describe('end'));
  parser.end(html);
  return tags;
}

function scannedTags(html: string): string[] {
  return scanMarkup(html).tags.map((tag) => {
    const attributes = tag.kind === 'start' ? tag.attributes.filter((attribute, index, all) => all.findIndex((other) => other.name === attribute.name) === index) : [];
    return [`${tag.kind} ${tag.name} ${where(tag.kind, tag.start, tag.end)}`, ...attributes.map((attribute) => `${attribute.name}=${decodeAttributeValue(attribute.value ?? '')}`)].join(' ');
  });
}

describe(scanMarkup.name, () => {
  it('sees the tags an HTML tokenizer sees, where it sees them, with the attributes it reads, whatever html it is given', () => {
    // No Outlook conditional comments (markup to Outlook, comments to parse5), no <noscript> (text to parse5, which runs
    // scripts; markup to a mail reader), no foreign content (<svg>, <math>): the scanner reads those differently by design.
    const fragments = fc.constantFrom(
      '<a href="https://a.example/">', '<a href=https://b.example/?q=1&amp;r=2>', "<A HREF='https://c.example/'>", '<a/href=https://d.example/>',
      '<area href=x>', '<v:roundrect href="y">', '</a>', '</a href="z">', '<body>', '</body>', '</BODY >', '<p class=x title="a > b">',
      '<!--', '-->', '--!>', '<!-->', '<!--->', '-', '!', '<script>', '</script>', '</script ', '<SCRIPT>', '<style>', '</style>', '<title>',
      '</title>', '<textarea>', '</textarea>', '<xmp>', '</xmp>', '<iframe>', '</iframe>', '<noembed>', '</noembed>', '<noframes>',
      '</noframes>', '<plaintext>', '<img alt="', '"', "'", '>', '<', '</', '/', '=', ' ', '\n', '\t', 'text', '<!doctype html>', '<?xml ?>',
      '<!x', '<b c d=e d=f>', '<a b<c href="https://e.example/">', '<a =x href=y>', '&amp;', 'a',
    );
    fc.assert(
      fc.property(fc.array(fragments, { maxLength: 40 }), (parts) => {
        const html = parts.join('');
        // The scanner does not follow script data's double escape (`<script><!--<script>…`), which mail readers never run.
        fc.pre(!/<script[\s\S]*<!--[\s\S]*<script/i.test(html));
        expect(scannedTags(html)).toEqual(parse5Tags(html));
      }),
      { numRuns: 2000 },
    );
  });
});
