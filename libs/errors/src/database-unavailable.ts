/** Socket failures on the way to Postgres: it is down, restarting or unreachable. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs that say the server cannot serve right now (Appendix A of the
 * Postgres manual): class 08 (connection exception), admin or crash shutdown,
 * "the database system is starting up", too many connections, and 25006
 * read_only_sql_transaction: a write that reached a read-only server, which
 * during a failover is the old primary demoted to a standby, or a reader a DNS
 * name still points at. Mailroom never opens a read-only transaction itself,
 * so 25006 can only be the server's state, and nothing was written.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);

/** What node-postgres says when a connection ends or cannot be had, without an error code. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/i,
  /is not queryable/,
  // ALTER DATABASE … ALLOW_CONNECTIONS false: taken out of service by an operator.
  /is not currently accepting connections/,
];

/**
 * TypeORM's errors for a query on a runner it has already given back. Mailroom
 * only uses a runner inside the transaction that made it, so the one way it is
 * released early is TypeORM's own: the connection under it failed (killed,
 * reset, Postgres restarting) and TypeORM released it on the client's 'error'
 * event. The next statement of that transaction then fails with this error
 * instead of the socket's, so it is a lost connection too.
 */
const RELEASED_RUNNER_ERRORS = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

/**
 * True when an error means the database could not be reached, not that the
 * request or the code is wrong: such a failure is a 503 the client may retry,
 * not a 500 that reports a bug.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  if (RELEASED_RUNNER_ERRORS.has((error as { name?: unknown }).name as string)) return true;
  // TypeORM's QueryFailedError copies the driver error's fields; keep to the driver error when there is one.
  const driverError = (error as { driverError?: unknown }).driverError ?? error;
  const { code, message } = driverError as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}
