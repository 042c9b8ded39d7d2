/** RFC 8461 §3.1: `sts-field-delim = *WSP ";" *WSP`. */
const FIELD_DELIMITER = /[ \t]*;[ \t]*/;
/** `sts-id = %s"id=" 1*32(ALPHA / DIGIT)`. */
const ID = /^id=([A-Za-z0-9]{1,32})$/;
/** `sts-extension = sts-ext-name "=" sts-ext-value`: a field this code does not know, which is ignored. */
const EXTENSION = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}=[\x21-\x3a\x3c\x3e-\x7e]+$/;

/**
 * The policy id of a domain's `_mta-sts` TXT records (each given as its character-strings, as Node's resolveTxt
 * gives them), or null when they announce no policy. As RFC 8461 §3.1 says: records that do not begin with
 * `v=STSv1` are discarded, and unless exactly one is left, and it is well formed with an id, there is no policy.
 */
export function stsPolicyId(records: readonly string[][]): string | null {
  const announcing = records.map((strings) => strings.join('')).filter((text) => /^v=STSv1[ \t]*;/.test(text));
  if (announcing.length !== 1) return null;
  const fields = announcing[0].split(FIELD_DELIMITER);
  // A trailing delimiter is allowed (`[sts-field-delim]`), and leaves one empty field behind.
  if (fields[fields.length - 1] === '') fields.pop();
  let id: string | null = null;
  for (const field of fields.slice(1)) {
    const match = ID.exec(field);
    if (match) id ??= match[1];
    else if (!EXTENSION.test(field)) return null;
  }
  return id;
}
