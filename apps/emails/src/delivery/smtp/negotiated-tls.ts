import type SMTPPool from 'nodemailer/lib/smtp-pool';

/** The parts of nodemailer's pool (10.x) read here; not in its typings. */
interface PoolInternals {
  _connections?: Array<{ connection?: { secure?: boolean } }>;
}

/**
 * Whether the pool's sessions to its one MX address run over TLS, read after a session with opportunistic STARTTLS
 * got through: nodemailer says so on each connection (`secure`, set once STARTTLS upgraded it) and nowhere in what a
 * send answers. All of a pool's connections go to the same address, which offers STARTTLS to all of them or to none,
 * so any open one tells. False when none is open any more (the server closed it at once): the session is then not
 * counted as a TLS success, never counted as one it was not.
 */
export function negotiatedTls(pool: SMTPPool): boolean {
  const connections = (pool as unknown as PoolInternals)._connections ?? [];
  return connections.some((resource) => resource.connection?.secure === true);
}
