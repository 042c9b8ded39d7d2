import { readFileSync } from 'node:fs';
import type { MailroomConfig } from '@mailroom/config';
import { ConnectionOptions, credsAuthenticator, TlsOptions } from 'nats';

/**
 * What every NATS connection of an app needs to know to reach and authenticate
 * to the server: the app's config; a test of one connection gives only NATS_URL.
 */
export type NatsSettings = Pick<MailroomConfig, 'NATS_URL'> & Partial<Pick<MailroomConfig, 'NATS_CREDS_FILE' | 'NATS_TLS_CA_FILE' | 'NATS_TLS_CERT_FILE' | 'NATS_TLS_KEY_FILE'>>;

/** The parts of nats.js's options that say which server, how to authenticate, and whether over TLS. */
export type NatsServerAccess = Pick<ConnectionOptions, 'servers' | 'user' | 'pass' | 'token' | 'authenticator' | 'tls'>;

/**
 * nats.js 2.x takes only host and port from a server URL and drops its user
 * information, so credentials written in NATS_URL are passed as options; the
 * server list then carries none, which also keeps them out of anything that
 * logs it.
 */
export function natsServerAccess(settings: NatsSettings): NatsServerAccess {
  const url = new URL(settings.NATS_URL);
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  const access: NatsServerAccess = { servers: [natsUrlWithoutCredentials(settings.NATS_URL)] };
  // nats://token@host: the NATS convention for a token is a user part with no password.
  if (user && url.password === '') access.token = user;
  else if (user) Object.assign(access, { user, pass });
  // A function, so a creds file rotated on disk is read again at the next (re)connect.
  const credsFile = settings.NATS_CREDS_FILE;
  if (credsFile) access.authenticator = credsAuthenticator(() => readFileSync(credsFile));
  const tls = natsTls(url, settings);
  if (tls) access.tls = tls;
  return access;
}

/**
 * nats.js upgrades to TLS whenever the server offers it; options.tls makes a
 * connection refuse a server that does not, which is what a tls:// URL or a
 * CA bundle of its own asks for.
 */
function natsTls(url: URL, settings: NatsSettings): TlsOptions | undefined {
  const wanted = url.protocol === 'tls:' || !!settings.NATS_TLS_CA_FILE || !!settings.NATS_TLS_CERT_FILE;
  if (!wanted) return undefined;
  const tls: TlsOptions = {};
  if (settings.NATS_TLS_CA_FILE) tls.caFile = settings.NATS_TLS_CA_FILE;
  if (settings.NATS_TLS_CERT_FILE) Object.assign(tls, { certFile: settings.NATS_TLS_CERT_FILE, keyFile: settings.NATS_TLS_KEY_FILE });
  return tls;
}

/** NATS_URL as it may be shown: in a log line or an error message. */
export function natsUrlWithoutCredentials(natsUrl: string): string {
  const url = new URL(natsUrl);
  url.username = '';
  url.password = '';
  return url.toString();
}
