import { DomainError } from '@mailroom/errors';

/**
 * 7-bit, no NUL, CRLF line ends only and lines of at most 998 octets (RFC 5322
 * §2.1.1, RFC 5321 §4.5.3.1.6): bytes that can go on the wire as they are. A
 * loop, not a regular expression: one over 10 MB overflows the regexp stack.
 */
export function fitsTheWireUnencoded(bytes: Buffer): boolean {
  let lineLength = 0;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index];
    if (byte === 0x0d && bytes[index + 1] === 0x0a) {
      index++;
      lineLength = 0;
    } else if (byte === 0x00 || byte === 0x0a || byte === 0x0d || byte > 0x7f || ++lineLength > 998) return false;
  }
  return true;
}

/**
 * An attachment is one file: a multipart type would make its part a container
 * with no parts (the file left out of the message). A message/* part is sent
 * unencoded, as RFC 2046 §5.2.1 requires of message/rfc822, so its content
 * must already be fit for the wire.
 */
export function assertAttachmentTypeFits(attachment: { content: string; contentType?: string }, name: string): void {
  const type = attachment.contentType?.toLowerCase() ?? '';
  if (type.startsWith('multipart/')) {
    throw DomainError.validation(`${name}.contentType`, 'must not be multipart/*: an attachment is one file (application/octet-stream, say)');
  }
  if (type.startsWith('message/') && !fitsTheWireUnencoded(Buffer.from(attachment.content, 'base64'))) {
    throw DomainError.validation(
      `${name}.content`,
      `a ${type} attachment is sent unencoded, so it must be 7-bit text with CRLF line ends and lines of at most 998 characters; send it as application/octet-stream instead`,
    );
  }
}
