import { Client, ClientConfig } from 'pg';

/** read_only_sql_transaction: a write refused because the server (or the session) is read-only. */
const READ_ONLY_SQL_TRANSACTION = '25006';

/**
 * The pool's client: one whose server refused a write as read-only is closed
 * once its statement is over (the transaction it was in is void anyway), so
 * the pool opens a new connection for the next request.
 *
 * Mailroom never opens a read-only transaction, so a 25006 is the server's
 * state: a failover's old primary demoted to a standby, or a reader that a
 * DNS name pointed at while it moved. Such a server keeps the connection
 * open, and a pool reusing it answered every write 503 for as long as the
 * connection lived (under steady traffic it never idles out) while new
 * connections would long have reached the new primary.
 */
export class LeavesReadOnlyServer extends Client {
  private leaving = false;

  constructor(config?: string | ClientConfig) {
    super(config);
    this.connection.on('errorMessage', (message: { code?: string }) => {
      if (message.code !== READ_ONLY_SQL_TRANSACTION || this.leaving) return;
      this.leaving = true;
      // After the statement's ReadyForQuery: the caller gets the 25006 itself, and what it sends next (a ROLLBACK)
      // fails as on any closed connection; the pool drops a closed client when it is released.
      this.once('drain', () => void this.end().catch(() => undefined));
    });
  }
}
