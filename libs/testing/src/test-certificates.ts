import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files of a private CA, a server certificate for localhost and 127.0.0.1, and a client certificate, all signed by it. */
export interface TestCertificates {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

/** A certificate and its key, PEM, as TLS servers take them. */
export interface IssuedCertificate {
  cert: string;
  key: string;
}

/** A private certificate authority of a test, which issues server certificates for any names. */
export interface TestCa {
  dir: string;
  /** The CA's own certificate, PEM: what a client must trust. */
  caFile: string;
  /** A server certificate for these DNS names (the first is its subject's CN too). */
  issueServer(dnsNames: string[]): IssuedCertificate;
}

interface CaFiles {
  dir: string;
  caFile: string;
  file(name: string): string;
  /** Writes `<name>.pem` and `<name>.key`, signed by the CA, with these X.509 v3 extensions. */
  issue(name: string, subject: string, extensions: string): void;
}

/** openssl's -newkey argument: RSA for the NATS suites (as deployments use), P-256 where only speed matters (a few ms, not 200). */
const RSA_KEY = ['rsa:2048'];
const EC_KEY = ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];

/** Made with the openssl command line: Node can sign data but cannot issue a certificate. */
function createCaFiles(newKey: string[]): CaFiles {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-tls-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', ...newKey, '-nodes', '-days', '1', '-subj', '/CN=Mailroom test CA', '-keyout', file('ca.key'), '-out', file('ca.pem'));
  const issue = (name: string, subject: string, extensions: string) => {
    writeFileSync(file(`${name}.ext`), extensions);
    openssl('req', '-newkey', ...newKey, '-nodes', '-subj', subject, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`));
    openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', file(`${name}.ext`), '-out', file(`${name}.pem`));
  };
  return { dir, caFile: file('ca.pem'), file, issue };
}

export function createTestCa(): TestCa {
  const ca = createCaFiles(EC_KEY);
  let issued = 0;
  return {
    dir: ca.dir,
    caFile: ca.caFile,
    issueServer(dnsNames) {
      const name = `server-${++issued}`;
      ca.issue(name, `/CN=${dnsNames[0]}`, `subjectAltName=${dnsNames.map((dnsName) => `DNS:${dnsName}`).join(',')}\nextendedKeyUsage=serverAuth\n`);
      return { cert: readFileSync(ca.file(`${name}.pem`), 'utf8'), key: readFileSync(ca.file(`${name}.key`), 'utf8') };
    },
  };
}

export function createTestCertificates(): TestCertificates {
  const ca = createCaFiles(RSA_KEY);
  ca.issue('server', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  ca.issue('client', '/CN=mailroom-app', 'extendedKeyUsage=clientAuth\n');
  return {
    dir: ca.dir,
    caFile: ca.caFile,
    serverCertFile: ca.file('server.pem'),
    serverKeyFile: ca.file('server.key'),
    clientCertFile: ca.file('client.pem'),
    clientKeyFile: ca.file('client.key'),
  };
}
