import { ErrorCode } from '@mailroom/errors';

/** Room for the NATS headers around a message's body, in requests and replies alike. */
export const NATS_HEADER_ROOM_BYTES = 4096;

/**
 * A reply larger than the server's max_payload cannot be sent: nats.js
 * throws, and the caller waits out its timeout and answers 503 "try again"
 * for work that was done, again and again. Such a reply is replaced by an
 * error in Nest's reply shape, so the caller answers at once with 413 and a
 * message that says why. Null when the reply fits as it is.
 */
export function replacementForOversizedReply(reply: Uint8Array | string, maxPayload: number | undefined): Uint8Array | null {
  const bytes = typeof reply === 'string' ? Buffer.byteLength(reply) : reply.length;
  if (!maxPayload || bytes + NATS_HEADER_ROOM_BYTES <= maxPayload) return null;
  const { id } = JSON.parse(typeof reply === 'string' ? reply : Buffer.from(reply).toString('utf8')) as { id?: string };
  const message = `The answer is ${bytes} bytes, more than the ${maxPayload} bytes this installation's message bus carries (NATS max_payload); ask for fewer items, or raise max_payload.`;
  return Buffer.from(JSON.stringify({ id, isDisposed: true, err: { code: ErrorCode.PayloadTooLarge, message } }));
}
