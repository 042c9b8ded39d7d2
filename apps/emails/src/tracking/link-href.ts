/**
 * Start tags whose href a reader follows: `<a>`, an image map's `<area>`, and
 * Outlook's VML shapes (the `<v:roundrect>` of "bulletproof" buttons, which
 * desktop Outlook shows and clicks in place of the `<a>` beside it). A quoted
 * value is taken whole, so a `>` inside one does not end the tag; outside one a
 * `<` does, which also keeps the scan linear on hostile html full of `<a `.
 */
export const LINK_TAG = /<(?:a|area|v:[a-z]+)(?=[\s/>])(?:"[^"]*"|'[^']*'|[^"'<>])*>/gi;

/** One attribute of a start tag: its name, then a double-quoted, single-quoted or unquoted value (HTML §13.1.2.3). */
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

export interface LinkHref {
  /** The attribute value as written, entities and all. */
  value: string;
  /** Where `href=…` starts and ends in the tag (name as written, quotes included). */
  start: number;
  end: number;
  quote: '"' | "'" | '';
  /** Every attribute name of the tag, lower-cased. */
  attributeNames: string[];
}

/** The tag's href as the HTML parser reads it: the first one (later duplicates are ignored), never text inside another attribute's value. */
export function linkHref(tag: string): LinkHref | null {
  const offset = tag.search(/[\s/>]/);
  const attributes = tag.slice(offset, -1);
  const attributeNames: string[] = [];
  let found: Omit<LinkHref, 'attributeNames'> | null = null;
  for (const match of attributes.matchAll(ATTRIBUTE)) {
    const name = match[1].toLowerCase();
    attributeNames.push(name);
    const value = match[2] ?? match[3] ?? match[4];
    if (name !== 'href' || found || value === undefined) continue;
    const quote = match[2] !== undefined ? '"' : match[3] !== undefined ? "'" : '';
    found = { value, start: offset + match.index!, end: offset + match.index! + match[0].length, quote };
  }
  return found && Object.assign({ attributeNames }, found);
}
