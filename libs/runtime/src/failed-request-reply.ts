import { ErrorCode } from '@mailroom/errors';
import { randomUUID } from 'node:crypto';

/** What a request the transport failed on (see failedRequest) is answered with, and what to log about it. */
export interface FailedRequest {
  /** The error reply, in Nest's reply shape, so the caller answers at once rather than at its timeout. */
  reply: Uint8Array;
  log: { errorId: string; err: string };
}

/**
 * A message Nest's transport failed on outside a handler's error filter: one
 * that is not JSON (nats.js's BAD_JSON from Nest's deserializer) is the
 * caller's mistake, anything else ours. Nest lets either escape as a rejected
 * promise nobody awaits, and Node ends the process on an unhandled
 * rejection: one malformed message from any client that may publish on the
 * subject stopped a replica.
 */
export function failedRequest(channel: string, error: unknown): FailedRequest {
  const errorId = randomUUID();
  const notJson = (error as { code?: unknown } | null)?.code === 'BAD_JSON';
  const err = notJson
    ? { code: ErrorCode.InvalidJson, message: `The request on ${channel} is not JSON (error id ${errorId}).` }
    : { code: ErrorCode.InternalError, message: `An internal error occurred (error id ${errorId}).` };
  return {
    reply: Buffer.from(JSON.stringify({ err, isDisposed: true })),
    log: { errorId, err: (error as Error)?.message ?? String(error) },
  };
}
