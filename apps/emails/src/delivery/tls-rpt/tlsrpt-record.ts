/** RFC 8460 §3: `field-delim = *WSP ";" *WSP`. */
const FIELD_DELIMITER = /[ \t]*;[ \t]*/;
/** `tlsrpt-extension = ext-name "=" ext-value`: a field this code does not know, which is ignored. */
const EXTENSION = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}=[\x21-\x3a\x3c\x3e-\x7e]+$/;

/** Where a domain asks for its reports: the mailto: addresses and https: URLs of its rua (others are ignored). */
export interface ReportDestinations {
  mailto: string[];
  https: string[];
}

/**
 * The report destinations a domain's `_smtp._tls` TXT records name (each record given as its character-strings, as
 * Node's resolveTxt gives them), or null when they ask for no report. As RFC 8460 §3 says: records that do not begin
 * with `v=TLSRPTv1;` are discarded, and unless exactly one is left there is none; it must have a `rua=` of
 * comma-separated URIs (a comma inside one is written %2C). URIs of other schemes, or that do not parse, are
 * skipped; a record with no usable one asks for nothing.
 */
export function reportDestinations(records: readonly string[][]): ReportDestinations | null {
  const announcing = records.map((strings) => strings.join('')).filter((text) => /^v=TLSRPTv1[ \t]*;/.test(text));
  if (announcing.length !== 1) return null;
  const fields = announcing[0].split(FIELD_DELIMITER).slice(1);
  if (fields[fields.length - 1] === '') fields.pop();
  let rua: string | undefined;
  for (const field of fields) {
    if (/^rua=/.test(field)) rua ??= field.slice(4);
    else if (!EXTENSION.test(field)) return null;
  }
  if (!rua) return null;
  const found: ReportDestinations = { mailto: [], https: [] };
  for (const uri of rua.split(',').map((part) => part.trim())) {
    const mailto = /^mailto:([^?\s]+)$/i.exec(uri);
    if (mailto) {
      const address = safeDecode(mailto[1]);
      if (address && /^[^\s@,<>]+@[^\s@,<>]+\.[^\s@,<>]+$/.test(address)) found.mailto.push(address);
    } else if (/^https:\/\//i.test(uri) && URL.canParse(uri)) {
      found.https.push(uri);
    }
  }
  return found.mailto.length || found.https.length ? found : null;
}

function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
