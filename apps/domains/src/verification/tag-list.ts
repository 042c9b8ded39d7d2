/**
 * The `name=value` tags of a DKIM key or DMARC record, both written as a tag
 * list (RFC 6376 §3.2, RFC 7489 §6.4): `;`-separated, blanks around names and
 * values not counted. Names as written: DKIM's are case-sensitive, DMARC's not.
 */
export function tagList(record: string): Array<[name: string, value: string]> {
  return record.split(';').flatMap((tag) => {
    const match = /^\s*([a-z]\w*)\s*=\s*([\s\S]*?)\s*$/i.exec(tag);
    return match ? [[match[1], match[2]] as [string, string]] : [];
  });
}
