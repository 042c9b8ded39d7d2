import MimeNode from 'nodemailer/lib/mime-node';

/** RFC 5322 §2.1.1 (and SMTP's 1,000 octets with CRLF, RFC 5321 §4.5.3.1.6). */
const LINE_MAX = 998;
/** "Reply-To: " and the value: anything this short fits one line whatever nodemailer does to it. */
const ALWAYS_FITS = LINE_MAX - 'Reply-To: '.length;

/**
 * Whether an address (`addr` or `Name <addr>`) can go out in lines of at most
 * 998 characters. nodemailer writes an address header itself, quoting a name
 * with specials or encoding a non-ASCII one (encoded words fold), and folds it
 * only between words, so one word of a name longer than a line would go on the
 * wire as a longer line. Asked of nodemailer's own header builder, and only
 * for an address long enough to need it.
 */
export function addressFitsHeaderLines(address: string): boolean {
  if (address.length <= ALWAYS_FITS) return true;
  const node = new MimeNode('text/plain');
  node.setHeader('Reply-To', address);
  return node
    .buildHeaders()
    .split('\r\n')
    .every((line) => line.length <= LINE_MAX);
}
