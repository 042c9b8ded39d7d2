/**
 * Where a signed click sends the reader: the link as a browser would have
 * followed it from the email (WHATWG URL parsing), or null when it is no
 * http(s) URL. A link in HTML may hold characters an HTTP header cannot carry
 * as they are (Cyrillic, CJK, emoji; a tab or newline a browser drops): set
 * raw as the Location, Node refused the header and the reader got a 500 where
 * the redirect should have been. Parsing percent-encodes the path and query,
 * puts an internationalized host in punycode and leaves `%XX` that is already
 * there alone, exactly as the browser would have done with the original link.
 */
export function redirectTarget(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
}
