import type { MailroomConfig } from '@mailroom/config';
import { natsUrlWithoutCredentials } from './nats-authentication';

/** The fields Node puts on an error from listen() or from the host name lookup before it. */
interface SystemError extends Error {
  code?: string;
  syscall?: string;
  port?: number;
  hostname?: string;
}

const natsFailures = new WeakSet<Error>();

/** Marks an error of connecting to NATS that nats.js did not raise itself (TLS errors come from Node as they are). */
export function markAsNatsFailure(error: Error): Error {
  natsFailures.add(error);
  return error;
}

/** How an app's failure to start is told to the operator: naming the variable to change where one is to blame. */
export function describeBootFailure(error: Error, config: MailroomConfig): string {
  if (error.name === 'NatsError' || natsFailures.has(error)) return natsFailure(error, config);
  return listenFailure(error as SystemError, config) ?? error.message;
}

/** The codes nats.js gives when the server turned the app's credentials down, as opposed to not answering. */
const NATS_AUTH_CODES = new Set(['AUTHORIZATION_VIOLATION', 'AUTHENTICATION_EXPIRED', 'AUTHENTICATION_TIMEOUT', 'BAD_AUTHENTICATION']);

/** Node's codes for a server certificate that does not verify or does not name the host. */
const TLS_CERTIFICATE_CODE = /CERT|SIGNATURE|ISSUER|SELF_SIGNED/;

/** nats.js says only CONNECTION_REFUSED or TIMEOUT; the operator needs to know which server it was. */
function natsFailure(error: Error & { code?: string }, config: MailroomConfig): string {
  const server = natsUrlWithoutCredentials(config.NATS_URL);
  if (error.code && NATS_AUTH_CODES.has(error.code)) {
    return `NATS at ${server} refused to let this app in (${error.message}); check the credentials in NATS_URL or NATS_CREDS_FILE`;
  }
  if (error.code && TLS_CERTIFICATE_CODE.test(error.code)) {
    return `cannot use NATS at ${server}: its TLS certificate was not accepted (${error.message}); set NATS_TLS_CA_FILE to the CA bundle that signed it, and name the server as its certificate does`;
  }
  return `cannot use NATS at ${server} (${error.message}); is nats-server running there, with JetStream enabled (-js)?`;
}

/**
 * Node says which address was taken or could not be resolved, not which
 * variable put it there: the gateway listens on HOST:PORT, every app on
 * HEALTH_HOST:HEALTH_PORT (the operations port is checked first, since a
 * service's unused PORT keeps its default).
 */
function listenFailure(error: SystemError, config: MailroomConfig): string | undefined {
  const listener = error.syscall === 'listen' ? listenerOfPort(error.port, config) : undefined;
  if (listener && error.code === 'EADDRINUSE') {
    return `${listener.port} ${error.port} is already in use (${error.message}); stop what uses it, or set another ${listener.port}`;
  }
  // An address of another machine (copied from another host's settings) is no lookup failure, and Node names only the address.
  if (listener && error.code === 'EADDRNOTAVAIL') {
    return `${listener.host} '${config[listener.host]}' is not an address of this machine (${error.message}); set it to one, such as 0.0.0.0`;
  }
  if (error.syscall === 'getaddrinfo' && error.hostname !== undefined) {
    const variable = error.hostname === config.HEALTH_HOST ? 'HEALTH_HOST' : error.hostname === config.HOST ? 'HOST' : undefined;
    return variable && `${variable} '${error.hostname}' cannot be listened on (${error.message}); set it to an address of this machine, such as 0.0.0.0`;
  }
  return undefined;
}

/** The variables of the listener on `port`: the operations port first, since a service's unused PORT keeps its default. */
function listenerOfPort(port: number | undefined, config: MailroomConfig): { port: 'PORT' | 'HEALTH_PORT'; host: 'HOST' | 'HEALTH_HOST' } | undefined {
  if (port === config.HEALTH_PORT) return { port: 'HEALTH_PORT', host: 'HEALTH_HOST' };
  if (port === config.PORT) return { port: 'PORT', host: 'HOST' };
  return undefined;
}
