/**
 * True when a failed transaction certainly did not commit, so its work may be
 * retried without writing anything twice. Postgres answers a failing
 * statement, and a failing COMMIT, with a SQLSTATE and aborts the
 * transaction. Without an answer (class 08, or a socket error with no
 * SQLSTATE at all) the COMMIT may have landed, and only the caller may
 * decide to try again.
 */
export function rolledBackForSure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08');
}

/** deadlock_detected and serialization_failure: Postgres chose this transaction to abort so that another could go on. */
const CONFLICT_SQLSTATES = new Set(['40P01', '40001']);

/**
 * True when Postgres aborted the transaction over a conflict with another
 * (a deadlock, or a serialization failure): it rolled back for sure, and the
 * same work is expected to commit when run again.
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONFLICT_SQLSTATES.has(code);
}
