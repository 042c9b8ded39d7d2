import { ClientConfig } from 'pg';
import { AlwaysListenedClient } from './always-listened-client';

/** read_only_sql_transaction: a write refused because the server (or the session) is read-only. */
const READ_ONLY_SQL_TRANSACTION = '25006';

type PoolRelease = (error?: Error | boolean) => void;

/**
 * The pool's client: one whose server refused a write as read-only is given
 * back to the pool as broken when released, so the pool closes it and opens
 * a new connection for a later request.
 *
 * Mailroom never opens a read-only transaction, so a 25006 is the server's
 * state: a failover's old primary demoted to a standby, or a reader that a
 * DNS name pointed at while it moved. Such a server keeps the connection
 * open, and a pool reusing it answered every write 503 for as long as the
 * connection lived (under steady traffic it never idles out) while new
 * connections would long have reached the new primary.
 *
 * pg-pool gives each client it lends a `release`, which closes the client
 * instead of keeping it when called with an error; the caller (TypeORM)
 * calls it without one, so the accessor below adds the error. Closing the
 * client ourselves instead raced with that release: the client could already
 * be idle in the pool when closed, and was then lent out closed.
 */
export class LeavesReadOnlyServer extends AlwaysListenedClient {
  private readOnlyServer = false;
  private poolRelease?: PoolRelease;

  constructor(config?: string | ClientConfig) {
    super(config);
    this.connection.on('errorMessage', (message: { code?: string }) => {
      if (message.code === READ_ONLY_SQL_TRANSACTION) this.readOnlyServer = true;
    });
  }

  /** The release of this loan: one kept from an earlier loan still reaches that loan's, which refuses a second call. */
  get release(): PoolRelease {
    const release = this.poolRelease;
    return (error) => release?.(error || (this.readOnlyServer ? new Error('the server refused a write as read-only (25006)') : undefined));
  }

  set release(release: PoolRelease) {
    this.poolRelease = release;
  }
}
