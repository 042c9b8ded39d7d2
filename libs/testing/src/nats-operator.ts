import { nkeys } from 'nats';

/** What an operator-mode (JWT) nats-server needs, and the .creds of one user it lets in. */
export interface NatsOperatorSetup {
  /** nats-server configuration: the operator, and an application and a system account preloaded in memory. */
  config: string;
  /** A .creds file's content (user JWT and NKey seed), laid out as `nsc generate creds` writes it. */
  creds: string;
}

type KeyPair = ReturnType<typeof nkeys.createOperator>;

const UNLIMITED = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };

/**
 * Signs the JWTs `nsc` would (nats-io/jwt v2 claims, alg ed25519-nkey), so the
 * e2e suite can run the apps against a server in operator mode without nsc.
 */
export function natsOperatorSetup(): NatsOperatorSetup {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const system = nkeys.createAccount();
  const user = nkeys.createUser();
  const operatorJwt = signJwt(operator, operator, { name: 'mailroom-test', nats: { type: 'operator', version: 2 } });
  // JetStream is on for an account only when its limits give it storage.
  const accountJwt = signJwt(operator, account, { name: 'mailroom', nats: { type: 'account', version: 2, limits: { mem_storage: -1, disk_storage: -1, ...UNLIMITED } } });
  const systemJwt = signJwt(operator, system, { name: 'SYS', nats: { type: 'account', version: 2, limits: UNLIMITED } });
  const userJwt = signJwt(account, user, { name: 'mailroom-app', nats: { type: 'user', version: 2, pub: {}, sub: {}, subs: -1, data: -1, payload: -1 } });
  const config = [
    `operator: ${operatorJwt}`,
    `system_account: ${system.getPublicKey()}`,
    'resolver: MEMORY',
    `resolver_preload: {\n  ${account.getPublicKey()}: ${accountJwt}\n  ${system.getPublicKey()}: ${systemJwt}\n}`,
  ].join('\n');
  const seed = new TextDecoder().decode(user.getSeed());
  const creds = `-----BEGIN NATS USER JWT-----\n${userJwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`;
  return { config, creds };
}

function signJwt(issuer: KeyPair, subject: KeyPair, claims: Record<string, unknown>): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = encode({ typ: 'JWT', alg: 'ed25519-nkey' });
  const body = encode({ jti: subject.getPublicKey(), iat: Math.floor(Date.now() / 1000), iss: issuer.getPublicKey(), sub: subject.getPublicKey(), ...claims });
  const signature = Buffer.from(issuer.sign(new TextEncoder().encode(`${header}.${body}`))).toString('base64url');
  return `${header}.${body}.${signature}`;
}
