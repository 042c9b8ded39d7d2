/** One attribute of a start tag as the HTML tokenizer reads it (HTML §13.2.5.32–39). */
export interface TagAttribute {
  /** Lower-cased, as HTML compares it. */
  name: string;
  /** Where the attribute (name, `=` and value, quotes included) starts and ends in the html. */
  start: number;
  end: number;
  /** As written, character references and all; undefined for an attribute with no `=`. */
  value?: string;
  quote: '"' | "'" | '';
}

export interface MarkupTag {
  kind: 'start' | 'end';
  /** Lower-cased. */
  name: string;
  start: number;
  end: number;
  attributes: TagAttribute[];
  /** Inside a downlevel-hidden conditional comment (`<!--[if mso]>…<![endif]-->`): markup only Outlook reads. */
  outlookOnly: boolean;
}

export interface MarkupScan {
  tags: MarkupTag[];
  /**
   * Where something added at the end goes to be seen: the end of the html,
   * or the start of a tag the html ends inside (which the parser drops, so it
   * stays dropped after what is put before it).
   */
  endAt: number;
  /**
   * What closes the comment, raw text element or conditional block the html
   * ends inside there (`-->`, `</style>`, `<![endif]-->`); '' when it ends in
   * plain content.
   */
  unclosed: string;
}

/**
 * Elements whose content is text, never markup (HTML §13.1.2: raw text and
 * escapable raw text elements, and those the parser treats so): a link
 * written inside one is no link. `<noscript>` is not among them: a mail reader
 * runs no scripts, and with scripting off its content is ordinary markup.
 */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

/**
 * `<!--[if mso]>`: to HTML a comment, to Outlook (Word's engine) the start of
 * markup it reads when the condition holds, up to `<![endif]-->`. Not the
 * downlevel-revealed `<!--[if !mso]><!-->`, which is a whole comment on its
 * own and leaves what follows to every reader. The condition holds no `>`
 * (`gte mso 9`, `mso | IE`), so a scan for it never runs past the comment.
 */
const DOWNLEVEL_HIDDEN = /<!--\[if [^\]>]*\]>(?!<!--)/y;
const CONDITIONAL_END = /<!\[endif\]-->/y;

const isSpace = (char: string) => char === ' ' || char === '\t' || char === '\n' || char === '\f' || char === '\r';
const isLetter = (char: string | undefined) => !!char && /[A-Za-z]/.test(char);

interface ParsedTag {
  name: string;
  end: number;
  attributes: TagAttribute[];
}

/** A tag from its `<` (or `</`) as the tokenizer reads it; null when the html ends inside it (the parser then drops it). */
function parseTag(html: string, nameStart: number): ParsedTag | null {
  let at = nameStart;
  while (at < html.length && !isSpace(html[at]) && html[at] !== '/' && html[at] !== '>') at++;
  const name = html.slice(nameStart, at).toLowerCase();
  const attributes: TagAttribute[] = [];
  for (;;) {
    while (at < html.length && (isSpace(html[at]) || html[at] === '/')) at++;
    if (at >= html.length) return null;
    if (html[at] === '>') return { name, end: at + 1, attributes };
    const start = at;
    // The first character of a name may be `=`; after it `=` starts the value.
    at++;
    while (at < html.length && !isSpace(html[at]) && html[at] !== '/' && html[at] !== '>' && html[at] !== '=') at++;
    const attributeName = html.slice(start, at).toLowerCase();
    const nameEnd = at;
    while (at < html.length && isSpace(html[at])) at++;
    if (html[at] !== '=') {
      attributes.push({ name: attributeName, start, end: nameEnd, quote: '' });
      continue;
    }
    at++;
    while (at < html.length && isSpace(html[at])) at++;
    if (at >= html.length) return null;
    const quote = html[at] === '"' || html[at] === "'" ? html[at] : '';
    if (quote) {
      const close = html.indexOf(quote, at + 1);
      if (close < 0) return null;
      attributes.push({ name: attributeName, start, end: close + 1, value: html.slice(at + 1, close), quote: quote as '"' | "'" });
      at = close + 1;
    } else {
      const valueStart = at;
      while (at < html.length && !isSpace(html[at]) && html[at] !== '>') at++;
      attributes.push({ name: attributeName, start, end: at, value: html.slice(valueStart, at), quote: '' });
    }
  }
}

/**
 * Where the raw text of `name` ends: at its end tag (`</style`, then white
 * space, `/` or `>`), or the end of the html. Nothing ends `<plaintext>` but
 * the end of an Outlook-only block it is written in, which is where the
 * comment it is in ends for every other reader.
 */
function rawTextEnd(html: string, name: string, from: number, outlookOnly: boolean): number {
  if (name === 'plaintext') {
    const conditionalEnd = outlookOnly ? html.indexOf('<![endif]-->', from) : -1;
    return conditionalEnd < 0 ? html.length : conditionalEnd;
  }
  const closing = new RegExp(`</${name}(?=[\\t\\n\\f\\r />])`, 'ig');
  closing.lastIndex = from;
  return closing.exec(html)?.index ?? html.length;
}

/** Where the comment opened at `open` ends: after `<!-->` or `<!--->` (whole, empty comments), else after the first `-->` or `--!>`; -1 when it runs to the end. */
function commentEnd(html: string, open: number): number {
  const abrupt = /^-?>/.exec(html.slice(open + 4, open + 6));
  if (abrupt) return open + 4 + abrupt[0].length;
  const close = /--!?>/g;
  close.lastIndex = open + 4;
  const found = close.exec(html);
  return found ? found.index + found[0].length : -1;
}

/**
 * The tags a reader's HTML parser sees, in order: not those written inside
 * comments, inside other tags' attribute values or in the text of raw text
 * elements; but those inside Outlook's conditional comments, which Outlook
 * reads. Not a full HTML parser: it follows the tokenizer only as far as
 * telling markup from text needs (no tree, no foreign content, no script
 * escapes), in one linear pass.
 */
export function scanMarkup(html: string): MarkupScan {
  const tags: MarkupTag[] = [];
  let at = 0;
  let outlookOnly = false;
  const endingInside = (closer: string, endAt = html.length): MarkupScan => ({ tags, endAt, unclosed: `${closer}${outlookOnly ? '<![endif]-->' : ''}` });
  // Text from `open` to the end (`<plaintext>`, a `</` the html ends with): nothing closes it, so what is added goes before
  // it; but inside an Outlook-only block, which to every other reader is a comment, after it, where `closer` and
  // `<![endif]-->` close that comment.
  const textToEnd = (open: number, closer: string): MarkupScan => (outlookOnly ? endingInside(closer) : endingInside('', open));
  const matchAt = (pattern: RegExp, from: number) => {
    pattern.lastIndex = from;
    return pattern.exec(html);
  };
  for (;;) {
    const open = html.indexOf('<', at);
    if (open < 0) return endingInside('');
    const next = html[open + 1];
    const conditional = matchAt(DOWNLEVEL_HIDDEN, open) ?? matchAt(CONDITIONAL_END, open);
    if (conditional) {
      outlookOnly = conditional[0].startsWith('<!--');
      at = open + conditional[0].length;
    } else if (html.startsWith('<!--', open)) {
      at = commentEnd(html, open);
      if (at < 0) return endingInside('-->');
    } else if (isLetter(next) || (next === '/' && isLetter(html[open + 2]))) {
      const kind = next === '/' ? 'end' : 'start';
      const tag = parseTag(html, open + (kind === 'end' ? 2 : 1));
      // The parser drops a tag the html ends inside; closing it would make it one, so nothing is added to it.
      if (!tag) return endingInside('', open);
      tags.push({ kind, name: tag.name, start: open, end: tag.end, attributes: tag.attributes, outlookOnly });
      at = tag.end;
      if (kind === 'start' && RAW_TEXT.has(tag.name)) {
        at = rawTextEnd(html, tag.name, at, outlookOnly);
        // Nothing closes <plaintext>: what follows it is text.
        if (at >= html.length) return tag.name === 'plaintext' ? textToEnd(open, '') : endingInside(`</${tag.name}>`);
      }
    } else if (next === '!' || next === '?' || next === '/') {
      // A doctype, `<![CDATA[`, `<?xml …>` or `</ …>`: a bogus comment up to the next `>`.
      const close = html.indexOf('>', open + 2);
      // `</` the html ends with is text (HTML §13.2.5.7); a `>` after it would make it an end tag of no name, which is dropped.
      if (close < 0) return next === '/' && open + 2 === html.length ? textToEnd(open, '>') : endingInside('>');
      at = close + 1;
    } else {
      at = open + 1;
    }
  }
}
