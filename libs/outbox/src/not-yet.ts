/**
 * What an event handler throws for an event it cannot apply until something
 * else has happened (a record another process has yet to write). The consumer
 * hands the event back for later like any failure, with the same growing
 * delay, but logs it at debug: the wait is expected, and a warning at each
 * redelivery read as a fault and hid the handler failures that are.
 */
export class NotYetError extends Error {
  override readonly name = 'NotYetError';
}

/**
 * The delivery from which a wait is a fault after all: redelivered after 1, 2, 4… 60 s, the tenth comes about four
 * minutes after the first, by when what it waits on (an SMTP exchange, bounded by SMTP_MESSAGE_TIMEOUT_MS's five
 * minutes by default, then its record) should long be done. From then on it warns at each redelivery, about once a
 * minute, so a wait that never ends is seen.
 */
export const NOT_YET_WARNS_FROM_ATTEMPT = 10;

/** How loudly a handler's failure at this delivery (1 for the first) is logged. */
export function handlerFailureLevel(error: unknown, attempt: number): 'debug' | 'warn' {
  return error instanceof NotYetError && attempt < NOT_YET_WARNS_FROM_ATTEMPT ? 'debug' : 'warn';
}
