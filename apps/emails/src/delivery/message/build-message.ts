import { createHash } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { detectMimeType, encodeWord } from 'nodemailer/lib/mime-funcs';
import type MimeNode from 'nodemailer/lib/mime-node';
import { fitsTheWireUnencoded } from '../../emails/attachment-type';
import { dkimSign } from './dkim-signature';
import { mimeBytes } from './mime-bytes';
import { DkimSigningKey, OutgoingEmail } from './outgoing-email';

/**
 * The header fields the DKIM signature covers (RFC 6376 §5.4). From must be
 * signed; the rest are the fields a forwarder could otherwise alter to change
 * what the reader sees. List-Unsubscribe(-Post) are signed so a one-click
 * unsubscribe link cannot be swapped (RFC 8058 §4). Each is oversigned, absent
 * ones too (signMessage), so none can be added without breaking the signature.
 */
export const DKIM_SIGNED_HEADERS = 'From:To:Subject:Date:Message-ID:MIME-Version:Content-Type:Reply-To:Cc:List-Unsubscribe:List-Unsubscribe-Post';

/**
 * The RFC 5322 message of an email: html + text as multipart/alternative,
 * attachments, inline images (an attachment's contentId becomes the Content-ID
 * the html refers to as cid:…), the Message-ID fixed at creation and the
 * custom headers. Bcc never appears in the headers; the envelope carries it.
 */
export function composeMessage(email: OutgoingEmail): Buffer {
  return mimeBytes(compileMessage(email));
}

/** The MIME tree of an email, before it is written out. */
export function compileMessage(email: OutgoingEmail): MimeNode {
  const composer = new MailComposer({
    from: email.fromAddress,
    to: email.to,
    cc: email.cc.length ? email.cc : undefined,
    replyTo: email.replyTo.length ? email.replyTo : undefined,
    subject: asWritten(email.subject),
    text: email.text === null ? undefined : withCrlf(email.text),
    html: email.html === null ? undefined : withCrlf(email.html),
    headers: Object.fromEntries(Object.entries(email.headers).map(([name, value]) => [name, foldable(value)])),
    messageId: email.messageId,
    date: email.originatedAt,
    baseBoundary: boundaryOf(email.id),
    attachments: email.attachments.map((attachment) => {
      const content = Buffer.from(attachment.content, 'base64');
      return { filename: attachment.filename, content, contentType: attachment.contentType ?? typeByName(attachment.filename, content), cid: attachment.contentId };
    }),
    // Content comes only from the row: never fetch a URL or read a file a caller names.
    disableUrlAccess: true,
    disableFileAccess: true,
  });
  // Bcc stays out of the headers (the default).
  return composer.compile();
}

/**
 * The type of an attachment sent without one, from its filename's extension
 * as nodemailer would guess it, except that a message/* type (.eml, .mht) is
 * sent unencoded (RFC 2046 §5.2.1): a saved message with LF line ends, 8-bit
 * bytes or long lines would go on the wire as it is, so that one goes as
 * application/octet-stream, base64-encoded. A contentType the caller gave was
 * checked when the email was accepted (attachment-type).
 */
function typeByName(filename: string, content: Buffer): string {
  const guessed = detectMimeType(filename);
  return /^message\//i.test(guessed) && !fitsTheWireUnencoded(content) ? 'application/octet-stream' : guessed;
}

/**
 * The part of the MIME boundaries every part shares, from the email's id:
 * nodemailer draws it at random for each build, so a retry (or a second copy
 * after a crash mid-delivery) differed from the first attempt in every
 * boundary, and in the body hash and signature over them. The id's random
 * half was drawn after the content was written, so no body can hold a
 * boundary line it could not know.
 */
const boundaryOf = (emailId: string) => createHash('sha256').update(emailId).digest('hex').slice(0, 16);

/**
 * A line holds at most 998 characters (RFC 5322 §2.1.1, and SMTP's 1,000 with
 * CRLF), and nodemailer folds "Name: value" only before a run of whitespace,
 * which then starts the next line together with the word after it (the space
 * after the colon included, for a value that starts with a word or with
 * whitespace). The API lets a subject or a header value be 998 characters, so
 * a value where such a line would pass 998 is written as RFC 2047 encoded
 * words instead, which fold; the reader sees the same text.
 */
const MAX_LINE = 998;
const foldedPieces = (value: string) => ` ${value}`.match(/\s+\S+/g) ?? [];
const foldable = (value: string) => (foldedPieces(value).some((piece) => piece.length > MAX_LINE) ? encodeWord(value, 'Q', 52) : value);

/**
 * Text shaped like an RFC 2047 encoded word. nodemailer encodes only non-ASCII
 * text, so a subject such as `Decode =?utf-8?Q?Hello?=` went out as it is and
 * the reader's client showed "Decode Hello". Such a subject is written as
 * encoded words itself, which decode to the text as written. Only the subject:
 * a custom header may be structured (List-Unsubscribe's URL), where an encoded
 * word would be read as literal text.
 */
const ENCODED_WORD_SHAPE = /=\?[^?\s]+\?[BQ]\?[^?\s]*\?=/i;
const asWritten = (subject: string) => (ENCODED_WORD_SHAPE.test(subject) ? encodeWord(subject, 'Q', 52) : foldable(subject));

/** Line breaks as RFC 5322 has them: a CR or LF on its own becomes CRLF. */
const withCrlf = (body: string) => body.replace(/\r\n|\r|\n/g, '\r\n');

/** Signs a message with rsa-sha256, relaxed/relaxed canonicalization, d= the from domain, the fields oversigned. */
export function signMessage(message: Buffer, key: DkimSigningKey): Promise<Buffer> {
  return dkimSign(message, Object.assign({}, key, { headerFieldNames: DKIM_SIGNED_HEADERS, oversign: true }));
}

/** The message as it goes on the wire: composed, then signed when there is a key (test mode has none). */
export async function buildMessage(email: OutgoingEmail, key: DkimSigningKey | null): Promise<Buffer> {
  const message = composeMessage(email);
  return key ? signMessage(message, key) : message;
}
