import { createServer } from 'node:net';
import { configWith } from '@mailroom/config';
import { describeBootFailure, markAsNatsFailure } from './boot-failure';

/** Errors shaped as Node raises them from listen() and from the host name lookup before it. */
function listenError(code: string, address: string, port: number): Error {
  return Object.assign(new Error(`listen ${code}: address already in use ${address}:${port}`), { code, syscall: 'listen', address, port });
}
function lookupError(hostname: string): Error {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
}

describe(describeBootFailure.name, () => {
  const config = configWith('gateway', { PORT: '3900', HEALTH_PORT: '8081', HOST: 'api.internal', HEALTH_HOST: '127.0.0.1' });

  it('names the variable whose port is taken', () => {
    expect(describeBootFailure(listenError('EADDRINUSE', '0.0.0.0', 3900), config)).toBe(
      'PORT 3900 is already in use (listen EADDRINUSE: address already in use 0.0.0.0:3900); stop what uses it, or set another PORT',
    );
    expect(describeBootFailure(listenError('EADDRINUSE', '127.0.0.1', 8081), config)).toBe(
      'HEALTH_PORT 8081 is already in use (listen EADDRINUSE: address already in use 127.0.0.1:8081); stop what uses it, or set another HEALTH_PORT',
    );
  });

  it('names the variable whose host cannot be listened on', () => {
    expect(describeBootFailure(lookupError('api.internal'), config)).toBe(
      "HOST 'api.internal' cannot be listened on (getaddrinfo ENOTFOUND api.internal); set it to an address of this machine, such as 0.0.0.0",
    );
  });

  // HOST set to an address of another machine (192.0.2.1 is TEST-NET, never local) failed with Node's
  // "listen EADDRNOTAVAIL: address not available 192.0.2.1:3900", naming no variable.
  it('names the variable whose address is not one of this machine', async () => {
    const notLocal = configWith('gateway', { PORT: '3900', HEALTH_PORT: '8081', HOST: '192.0.2.1', HEALTH_HOST: '192.0.2.1' });
    const failedListen = (port: number) =>
      new Promise<Error>((resolve) => {
        const server = createServer();
        server.once('error', resolve);
        server.listen(port, '192.0.2.1', () => server.close(() => resolve(new Error('listened'))));
      });
    expect(describeBootFailure(await failedListen(3900), notLocal)).toBe(
      "HOST '192.0.2.1' is not an address of this machine (listen EADDRNOTAVAIL: address not available 192.0.2.1:3900); set it to one, such as 0.0.0.0",
    );
    expect(describeBootFailure(await failedListen(8081), notLocal)).toBe(
      "HEALTH_HOST '192.0.2.1' is not an address of this machine (listen EADDRNOTAVAIL: address not available 192.0.2.1:8081); set it to one, such as 0.0.0.0",
    );
  });

  it('tells a server that refused the credentials from one that is not there, without the credentials', () => {
    const withPassword = configWith('gateway', { NATS_URL: 'nats://app:hunter2@nats.internal:4222' });
    const refused = Object.assign(new Error("'Authorization Violation'"), { name: 'NatsError', code: 'AUTHORIZATION_VIOLATION' });
    expect(describeBootFailure(refused, withPassword)).toBe(
      "NATS at nats://nats.internal:4222 refused to let this app in ('Authorization Violation'); check the credentials in NATS_URL or NATS_CREDS_FILE",
    );
    const unreachable = Object.assign(new Error('CONNECTION_REFUSED'), { name: 'NatsError', code: 'CONNECTION_REFUSED' });
    expect(describeBootFailure(unreachable, withPassword)).toBe(
      'cannot use NATS at nats://nats.internal:4222 (CONNECTION_REFUSED); is nats-server running there, with JetStream enabled (-js)?',
    );
  });

  it('names NATS for a certificate Node refused on a NATS connection, and only there', () => {
    const tlsConfig = configWith('gateway', { NATS_URL: 'tls://nats.internal:4222' });
    const unverified = () => Object.assign(new Error('unable to verify the first certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(describeBootFailure(markAsNatsFailure(unverified()), tlsConfig)).toBe(
      'cannot use NATS at tls://nats.internal:4222: its TLS certificate was not accepted (unable to verify the first certificate); set NATS_TLS_CA_FILE to the CA bundle that signed it, and name the server as its certificate does',
    );
    expect(describeBootFailure(unverified(), tlsConfig)).toBe('unable to verify the first certificate');
  });

  it('leaves other errors as they are', () => {
    expect(describeBootFailure(new Error('something else'), config)).toBe('something else');
  });
});
