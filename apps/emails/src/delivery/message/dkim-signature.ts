import { createHash, KeyObject, sign } from 'node:crypto';
import { domainToASCII } from 'node:url';

/**
 * DKIM (RFC 6376) with rsa-sha256 and relaxed/relaxed canonicalization, the
 * form nodemailer produces, written here for one reason: the RSA operation
 * runs in libuv's thread pool (crypto.sign with a callback) instead of on the
 * event loop, where it was the largest single cost of a delivery. Signatures
 * are deterministic (PKCS#1 v1.5), so the spec checks this against nodemailer
 * byte for byte.
 */
export interface DkimSigner {
  domainName: string;
  keySelector: string;
  privateKey: KeyObject;
  /** Colon-separated header field names to sign; the ones present in the message are signed (h=). */
  headerFieldNames: string;
  /**
   * List each of those names once more than the message holds the field (RFC 6376 §8.15), absent ones
   * included: the extra entry signs "no further such field", so a From, Subject or Reply-To added in
   * transit (a receiver shows the first From) breaks the signature instead of riding on it.
   */
  oversign?: boolean;
}

/** §3.4.4: whitespace runs become one SP, none at line ends, no empty lines at the end, and a final CRLF. */
export function relaxedBody(body: Buffer): Buffer {
  const lines = body.toString('latin1').split('\r\n');
  const canonical = lines.map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (canonical.length && canonical[canonical.length - 1] === '') canonical.pop();
  return Buffer.from(canonical.length ? `${canonical.join('\r\n')}\r\n` : '', 'latin1');
}

/** §3.4.2: lower-case name, unfolded value, whitespace runs as one SP, none around the colon or at the end. */
export function relaxedHeader(field: string): string {
  const colon = field.indexOf(':');
  const value = field.slice(colon + 1).replace(/\r\n/g, '').replace(/[ \t]+/g, ' ').trim();
  return `${field.slice(0, colon).trim().toLowerCase()}:${value}`;
}

/** The header fields of a header block, folded lines kept with the field they continue. */
function headerFields(header: string): string[] {
  const fields: string[] = [];
  for (const line of header.split('\r\n')) {
    if (/^[ \t]/.test(line) && fields.length) fields[fields.length - 1] += `\r\n${line}`;
    else if (line) fields.push(line);
  }
  return fields;
}

/** A tag value we put in the header cannot end its tag or open another (§3.2). */
const tagValue = (value: string) => value.replace(/[\x00-\x1f\x7f;=]/g, '');

/** The message with a DKIM-Signature header field in front of it. */
export async function dkimSign(message: Buffer, signer: DkimSigner): Promise<Buffer> {
  const split = message.indexOf('\r\n\r\n');
  const header = message.subarray(0, split < 0 ? message.length : split).toString('latin1');
  const body = split < 0 ? Buffer.alloc(0) : message.subarray(split + 4);
  const bodyHash = createHash('sha256').update(relaxedBody(body)).digest('base64');

  // §5.4.2: a field that appears more than once is signed from the bottom up, one instance per listing.
  const fields = headerFields(header);
  const names: string[] = [];
  let signedHeaders = '';
  for (const name of new Set(signer.headerFieldNames.toLowerCase().split(':').map((entry) => entry.trim()))) {
    const present = fields.filter((candidate) => candidate.slice(0, candidate.indexOf(':')).trim().toLowerCase() === name);
    const signed = signer.oversign ? present.reverse() : present.slice(-1);
    for (const field of signed) {
      names.push(name);
      signedHeaders += `${relaxedHeader(field)}\r\n`;
    }
    // The entry with no field left to match signs its absence (§5.4).
    if (signer.oversign) names.push(name);
  }
  const domain = domainToASCII(tagValue(signer.domainName)) || tagValue(signer.domainName).toLowerCase();
  const tags = ['v=1', 'a=rsa-sha256', 'c=relaxed/relaxed', `d=${domain}`, 'q=dns/txt', `s=${tagValue(signer.keySelector)}`, `bh=${bodyHash}`, `h=${names.join(':')}`];
  const field = `${foldedTags(tags)}\r\n b=`;
  // §3.7: the signature covers the signed fields, then this field as it is sent, with an empty b= and no final CRLF.
  const signature = await signAsync(Buffer.from(signedHeaders + relaxedHeader(field), 'latin1'), signer.privateKey);
  const folded = signature.toString('base64').replace(/(^.{73}|.{75}(?!$))/g, '$&\r\n ');
  return Buffer.concat([Buffer.from(`${field}${folded}\r\n`, 'latin1'), message]);
}

/**
 * The field up to its b= tag, folded at the "; " between tags, and inside an
 * h= list too long for a line of its own after a ":" (§3.5 allows FWS there),
 * so no header line passes 78 characters (RFC 5322 §2.1.1).
 */
function foldedTags(tags: string[]): string {
  const lines: string[] = [];
  let line = 'DKIM-Signature:';
  for (const tag of tags) {
    const text = `${tag};`;
    if (line.length + 1 + text.length <= 76) {
      line += ` ${text}`;
      continue;
    }
    lines.push(line);
    line = '';
    // A tag goes whole on the next line; only an h= list longer than a line is split, between names.
    for (const piece of text.length < 76 ? [text] : text.split(/(?<=:)/)) {
      if (line && line.length + piece.length > 76) {
        lines.push(line);
        line = '';
      }
      line += line ? piece : ` ${piece}`;
    }
  }
  lines.push(line);
  return lines.join('\r\n');
}

function signAsync(data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => sign('sha256', data, key, (error, signature) => (error ? reject(error) : resolve(signature))));
}
