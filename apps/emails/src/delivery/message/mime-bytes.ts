import type { Transform } from 'node:stream';
import { Encoder as Base64Encoder } from 'nodemailer/lib/base64';
import type MimeNode from 'nodemailer/lib/mime-node';
import { Encoder as QuotedPrintableEncoder } from 'nodemailer/lib/qp';

/**
 * The bytes of a MIME tree that nodemailer's composer built, written in one
 * synchronous pass. MimeNode.stream() walks the same tree through a
 * PassThrough per body, an encoder stream joined by stream.pipeline(), and a
 * setImmediate between parts; each pipeline builds an AbortController and a
 * DOMException with a stack trace when it ends. For a small message that
 * machinery cost more than everything else in composing it.
 *
 * The parts stay nodemailer's: each node's header block comes from its
 * buildHeaders(), its transfer encoding from getTransferEncoding(), and its
 * body from nodemailer's own base64 and quoted-printable encoders, fed the
 * whole body as the one chunk the stream path gives them. Only the walk is
 * ours, and it follows MimeNode.stream() step for step: headers, a blank line,
 * the encoded content, then each child behind its boundary and the closing
 * boundary. The spec checks the result byte for byte against build().
 *
 * The tree writes CRLF itself; bodies must already use CRLF (compileMessage
 * does that). The final CRLF that build()'s final-newline stream would add is
 * added here.
 */
export function mimeBytes(root: MimeNode): Buffer {
  const chunks: Buffer[] = [];
  writeNode(root, chunks);
  const message = Buffer.concat(chunks);
  return message.subarray(-2).equals(CRLF) ? message : Buffer.concat([message, CRLF]);
}

const CRLF = Buffer.from('\r\n');

function writeNode(node: MimeNode, chunks: Buffer[]): void {
  // Read before the headers are built, as stream() does: building them records it as a header.
  const transferEncoding = node.getTransferEncoding();
  // UTF-8, as a Writable encodes the string stream() writes: an internationalized address stays unencoded in the header.
  chunks.push(Buffer.from(`${node.buildHeaders()}\r\n\r\n`, 'utf8'));
  if (node.content) chunks.push(...encodedContent(node, transferEncoding));
  if (!node.multipart) return;
  node.childNodes.forEach((child, index) => {
    chunks.push(Buffer.from(`${index > 0 ? '\r\n' : ''}--${node.boundary}\r\n`, 'latin1'));
    writeNode(child, chunks);
  });
  chunks.push(Buffer.from(`\r\n--${node.boundary}--\r\n`, 'latin1'));
}

function encodedContent(node: MimeNode, transferEncoding: string | false): Buffer[] {
  const content = node.content;
  if (content instanceof Error) throw content;
  if (typeof content !== 'string' && !Buffer.isBuffer(content)) {
    // compileMessage gives every node a string or a Buffer; a stream, file or URL would need the stream path.
    throw new Error('a MIME part whose content is not a string or a Buffer cannot be written synchronously');
  }
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  if (transferEncoding === 'base64') return drain(new Base64Encoder({}), bytes);
  if (transferEncoding === 'quoted-printable') {
    // As stream() does: outside text, a lone CR or LF is data and is encoded.
    return drain(new QuotedPrintableEncoder({ binary: !/^text\//i.test(node.contentType || '') }), bytes);
  }
  return [bytes];
}

/** Runs an encoder's transform and flush over one chunk and collects what it pushes, without the stream around it. */
function drain(encoder: Transform, input: Buffer): Buffer[] {
  const output: Buffer[] = [];
  encoder.push = (chunk: Buffer | string | null) => {
    if (chunk !== null) output.push(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk);
    return true;
  };
  const rethrow = (error?: Error | null) => {
    if (error) throw error;
  };
  // A Writable hands a Buffer chunk to _transform with the encoding 'buffer', which BufferEncoding leaves out.
  encoder._transform(input, 'buffer' as BufferEncoding, rethrow);
  encoder._flush(rethrow);
  return output;
}
