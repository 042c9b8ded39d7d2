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
