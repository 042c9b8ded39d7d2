import type { MarkupTag, TagAttribute } from './html-markup';

/**
 * Start tags whose href a reader follows: `<a>`, an image map's `<area>`, and
 * Outlook's VML shapes (the `<v:roundrect>` of "bulletproof" buttons, which
 * desktop Outlook shows and clicks in place of the `<a>` beside it).
 */
const LINK_ELEMENT = /^(?:a|area|v:[a-z]+)$/;

export interface LinkHref {
  /** The href attribute: its value as written, entities and all, and where it stands in the html. */
  attribute: TagAttribute & { value: string };
  /** Every attribute name of the tag, lower-cased. */
  attributeNames: string[];
}

/** The link tag's href as the HTML parser reads it: the first one (later duplicates are ignored); null for any other tag, or one with no href value. */
export function linkHref(tag: MarkupTag): LinkHref | null {
  if (tag.kind !== 'start' || !LINK_ELEMENT.test(tag.name)) return null;
  const attribute = tag.attributes.find((candidate) => candidate.name === 'href');
  if (attribute?.value === undefined) return null;
  return { attribute: Object.assign({ value: attribute.value }, attribute), attributeNames: tag.attributes.map((candidate) => candidate.name) };
}
