import { Client, ClientConfig } from 'pg';

/**
 * node-postgres's Client, listening for its own 'error' events from the
 * start. The pool stops listening when it hands a connection out, and TypeORM
 * starts a few promise steps later; a FATAL read in the same burst as a new
 * connection's ReadyForQuery (Postgres shutting down just as the connection
 * is made) was emitted in between to no listener, which ends the process.
 * Nothing is lost by listening here: the client is marked unusable, so its
 * holder's next query fails as "not queryable" (the database unavailable, a
 * 503), the pool drops it when it comes back, and whoever else listens (the
 * pool while it is idle, TypeORM while it is held) still hears the error.
 */
export class AlwaysListenedClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}
