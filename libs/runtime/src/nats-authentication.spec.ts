import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator, nkeys } from 'nats';
import { natsServerAccess, natsUrlWithoutCredentials } from './nats-authentication';

describe(natsServerAccess.name, () => {
  it('passes a user and password written in the URL as options, percent-decoded, and keeps them out of the server list', () => {
    expect(natsServerAccess({ NATS_URL: 'nats://mail%40room:p%3Ass@nats.internal:4222' })).toEqual({
      servers: ['nats://nats.internal:4222'],
      user: 'mail@room',
      pass: 'p:ss',
    });
  });

  it('takes a user part without a password as a token', () => {
    expect(natsServerAccess({ NATS_URL: 'nats://s3cr3t-token@nats.internal:4222' })).toEqual({ servers: ['nats://nats.internal:4222'], token: 's3cr3t-token' });
  });

  it('connects a URL without credentials as it is, TLS left to what the server offers', () => {
    expect(natsServerAccess({ NATS_URL: 'nats://127.0.0.1:4222', NATS_CREDS_FILE: '', NATS_TLS_CA_FILE: '' })).toEqual({ servers: ['nats://127.0.0.1:4222'] });
  });

  it('signs the server nonce with the seed of a creds file, read again at each connect', () => {
    const user = nkeys.createUser();
    const creds = join(mkdtempSync(join(tmpdir(), 'mailroom-creds-')), 'app.creds');
    writeFileSync(creds, credsFile('eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln', new TextDecoder().decode(user.getSeed())));
    const { authenticator } = natsServerAccess({ NATS_URL: 'nats://127.0.0.1:4222', NATS_CREDS_FILE: creds });
    const nonce = 'server-nonce';
    const answer = (authenticator as Authenticator)(nonce) as { nkey: string; sig: string; jwt: string };
    expect(answer.nkey).toBe(user.getPublicKey());
    expect(answer.jwt).toBe('eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln');
    expect(user.verify(new TextEncoder().encode(nonce), Buffer.from(answer.sig, 'base64url'))).toBe(true);
  });

  it('requires TLS for a tls:// URL or a CA bundle, and presents a client certificate for mutual TLS', () => {
    expect(natsServerAccess({ NATS_URL: 'tls://nats.internal:4222' }).tls).toEqual({});
    expect(natsServerAccess({ NATS_URL: 'nats://nats.internal:4222', NATS_TLS_CA_FILE: '/etc/nats/ca.pem' }).tls).toEqual({ caFile: '/etc/nats/ca.pem' });
    expect(
      natsServerAccess({ NATS_URL: 'tls://nats.internal:4222', NATS_TLS_CA_FILE: '/etc/nats/ca.pem', NATS_TLS_CERT_FILE: '/etc/nats/app.pem', NATS_TLS_KEY_FILE: '/etc/nats/app.key' }).tls,
    ).toEqual({ caFile: '/etc/nats/ca.pem', certFile: '/etc/nats/app.pem', keyFile: '/etc/nats/app.key' });
  });
});

describe(natsUrlWithoutCredentials.name, () => {
  it('drops the user, password or token', () => {
    expect(natsUrlWithoutCredentials('nats://app:hunter2@nats.internal:4222')).toBe('nats://nats.internal:4222');
    expect(natsUrlWithoutCredentials('tls://token@nats.internal:4222')).toBe('tls://nats.internal:4222');
  });
});

/** The layout `nsc generate creds` writes. */
function credsFile(jwt: string, seed: string): string {
  return `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`;
}
