import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, configWith, loadConfig } from './load-config';
import { launcherPortProblems } from './variable-rules';

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe(loadConfig.name, () => {
  it('applies the defaults and parses types', () => {
    const config = loadConfig({ PORT: '8080', TEST_MODE_ENABLED: 'false', TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' }, 'gateway');
    expect(config.PORT).toBe(8080);
    expect(config.TEST_MODE_ENABLED).toBe(false);
    expect(config.TRUSTED_PROXIES).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(config.RPC_TIMEOUT_MS).toBe(5000);
    expect(config.NATS_URL).toBe('nats://127.0.0.1:4222');
  });

  it('reads a choice with white space around it (a line break a secret store or heredoc left) as the choice, as every other parser does', () => {
    const config = loadConfig({ NODE_ENV: 'production\n', ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), LOG_LEVEL: ' warn ', DATABASE_URL: 'postgres://u@127.0.0.1/x' }, 'gateway');
    expect([config.NODE_ENV, config.LOG_LEVEL]).toEqual(['production', 'warn']);
  });

  it('lists every problem at once, naming each variable', () => {
    const problems = problemsOf(() =>
      loadConfig({ PORT: 'eighty', TEST_MODE_ENABLED: 'maybe', TRUSTED_PROXIES: '127.0.0.1,not-an-ip', LOG_LEVEL: 'loud', NATS_URL: 'http://x' }, 'gateway'),
    );
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/^PORT must be an integer/m);
    expect(problems.join('\n')).toMatch(/^TEST_MODE_ENABLED must be true or false/m);
    expect(problems.join('\n')).toMatch(/^TRUSTED_PROXIES item 2: 'not-an-ip'/m);
    expect(problems.join('\n')).toMatch(/^LOG_LEVEL must be one of/m);
    expect(problems.join('\n')).toMatch(/^NATS_URL must use nats or tls/m);
  });

  it('refuses an IPv4-mapped TRUSTED_PROXIES range with an IPv6 prefix under 96, which trusts no proxy at all, and takes one of 96 or more', () => {
    for (const range of ['::ffff:10.0.0.0/8', '::FFFF:a00:0/16', '::10.0.0.0/8']) {
      expect(problemsOf(() => loadConfig({ TRUSTED_PROXIES: range }, 'gateway')).join('\n')).toMatch(new RegExp(`^TRUSTED_PROXIES item 1: .*write it as IPv4`, 'm'));
    }
    expect(loadConfig({ TRUSTED_PROXIES: '::ffff:10.0.0.0/104, ::ffff:10.0.0.1, 10.0.0.0/8' }, 'gateway').TRUSTED_PROXIES).toEqual(['::ffff:10.0.0.0/104', '::ffff:10.0.0.1', '10.0.0.0/8']);
  });

  it('refuses a TRUSTED_PROXIES range of /0, which the HTTP server cannot take, naming the variable', () => {
    for (const range of ['0.0.0.0/0', '::/0']) {
      expect(problemsOf(() => loadConfig({ TRUSTED_PROXIES: `127.0.0.1,${range}` }, 'gateway')).join('\n')).toMatch(new RegExp(`^TRUSTED_PROXIES item 2: '${range}'`, 'm'));
    }
  });

  it('limits failed authentications to 20 a minute per client unless AUTH_FAILURE_LIMIT says otherwise (0 = no limit)', () => {
    expect(loadConfig({}, 'gateway').AUTH_FAILURE_LIMIT).toBe(20);
    expect(loadConfig({ AUTH_FAILURE_LIMIT: '0' }, 'gateway').AUTH_FAILURE_LIMIT).toBe(0);
    for (const value of ['-1', 'many', '2.5']) {
      expect(problemsOf(() => loadConfig({ AUTH_FAILURE_LIMIT: value }, 'gateway'))).toEqual([expect.stringMatching(/^AUTH_FAILURE_LIMIT must be (an integer|between 0 and 1000000)/)]);
    }
  });

  it('refuses port 0 in a URL, where nothing can be reached', () => {
    const db = { DATABASE_URL: 'postgres://u@127.0.0.1/x' };
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1:0/x' }, 'keys'))).toEqual([
      "DATABASE_URL must not use port 0 (nothing can be reached on it), got 'postgres://***@127.0.0.1:0/x'",
    ]);
    expect(problemsOf(() => loadConfig({ ...db, DELIVERY_MODE: 'relay', SMTP_RELAY_URL: 'smtp://relay.example.com:0' }, 'emails'))).toEqual([
      expect.stringMatching(/^SMTP_RELAY_URL must not use port 0/),
    ]);
    expect(problemsOf(() => loadConfig({ ...db, TRACKING_BASE_URL: 'https://t.example.com:0' }, 'domains'))).toEqual([expect.stringMatching(/^TRACKING_BASE_URL must not use port 0/)]);
  });

  it('requires DATABASE_URL only in the apps that use it', () => {
    expect(problemsOf(() => loadConfig({}, 'keys'))).toEqual([expect.stringMatching(/^DATABASE_URL is required/)]);
    expect(() => loadConfig({}, 'gateway')).not.toThrow();
  });

  it('requires SMTP_RELAY_URL in relay mode, in the emails app, alongside the other problems', () => {
    const db = { DATABASE_URL: 'postgres://u@127.0.0.1/x' };
    expect(problemsOf(() => loadConfig({ ...db, DELIVERY_MODE: 'relay', PORT: 'x' }, 'emails'))).toEqual([
      expect.stringMatching(/^PORT must be an integer/),
      'SMTP_RELAY_URL is required when DELIVERY_MODE=relay (smtp://user:pass@host:587 or smtps://…:465)',
    ]);
    expect(loadConfig({ ...db, DELIVERY_MODE: 'relay', SMTP_RELAY_URL: 'smtp://relay.example.com:587' }, 'emails').SMTP_RELAY_URL).toBe('smtp://relay.example.com:587');
    expect(() => loadConfig({ DELIVERY_MODE: 'relay' }, 'gateway')).not.toThrow();
  });

  it('requires ENCRYPTION_KEY in production, in the apps that keep secrets or sign tracking links', () => {
    const production = { DATABASE_URL: 'postgres://u@127.0.0.1/x', NODE_ENV: 'production' };
    for (const app of ['gateway', 'emails', 'domains', 'webhook-dispatcher'] as const) {
      expect(problemsOf(() => loadConfig(production, app))).toEqual(['ENCRYPTION_KEY is required when NODE_ENV=production (base64 of 32 random bytes: openssl rand -base64 32)']);
    }
    expect(() => loadConfig(production, 'keys')).not.toThrow();
    expect(() => loadConfig({ ...production, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }, 'emails')).not.toThrow();
    // A malformed key is named once, for what is wrong with it.
    expect(problemsOf(() => loadConfig({ ...production, ENCRYPTION_KEY: 'short' }, 'gateway'))).toEqual([expect.stringMatching(/^ENCRYPTION_KEY must be 32 bytes in base64/)]);
  });

  it('reads ENCRYPTION_KEY_PREVIOUS as keys that only open, and says what is wrong with each', () => {
    const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
    const production = { DATABASE_URL: 'postgres://u@127.0.0.1/x', NODE_ENV: 'production', ENCRYPTION_KEY: key(1) };
    expect(loadConfig({ ...production, ENCRYPTION_KEY_PREVIOUS: ` ${key(2)}, ${key(3)} ` }, 'domains').ENCRYPTION_KEY_PREVIOUS).toEqual([key(2), key(3)]);
    expect(loadConfig(production, 'domains').ENCRYPTION_KEY_PREVIOUS).toEqual([]);
    expect(problemsOf(() => loadConfig({ ...production, ENCRYPTION_KEY_PREVIOUS: `${key(2)},short` }, 'emails'))).toEqual([
      'ENCRYPTION_KEY_PREVIOUS item 2: must be 32 bytes in base64 (generate one with: openssl rand -base64 32)',
    ]);
    expect(problemsOf(() => loadConfig({ ...production, ENCRYPTION_KEY_PREVIOUS: `${key(2)},${key(1)}` }, 'gateway'))).toEqual([
      'ENCRYPTION_KEY_PREVIOUS item 2 is ENCRYPTION_KEY itself: list only keys that ENCRYPTION_KEY replaced (or will replace)',
    ]);
    expect(problemsOf(() => loadConfig({ ...production, ENCRYPTION_KEY_PREVIOUS: `${key(2)},${key(2)}` }, 'webhook-dispatcher'))).toEqual([
      'ENCRYPTION_KEY_PREVIOUS item 2 repeats item 1',
    ]);
    // Without ENCRYPTION_KEY new secrets would be sealed with the public development key: refused everywhere, said once in production.
    expect(problemsOf(() => loadConfig({ ENCRYPTION_KEY_PREVIOUS: key(2) }, 'gateway'))).toEqual([
      'ENCRYPTION_KEY_PREVIOUS needs ENCRYPTION_KEY: previous keys only open secrets, and new ones would be sealed with the public development key',
    ]);
    expect(problemsOf(() => loadConfig({ ...production, ENCRYPTION_KEY: '', ENCRYPTION_KEY_PREVIOUS: key(2) }, 'domains'))).toEqual([
      'ENCRYPTION_KEY is required when NODE_ENV=production (base64 of 32 random bytes: openssl rand -base64 32)',
    ]);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '' }, 'gateway').PORT).toBe(3000);
  });

  it('never echoes credentials of a bad connection string', () => {
    const problems = problemsOf(() => loadConfig({ DATABASE_URL: 'mysql://admin:hunter2@db/x' }, 'keys'));
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('builds a config from overrides only, ignoring process.env', () => {
    process.env.PORT = '1';
    try {
      expect(configWith('gateway', { HOST: '127.0.0.1' }).PORT).toBe(3000);
    } finally {
      delete process.env.PORT;
    }
  });

  it('takes an emails role and a nice value, and names each when it is wrong', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db/x', EMAILS_ROLE: 'worker', PROCESS_NICE: '10' }, 'emails');
    expect(config.EMAILS_ROLE).toBe('worker');
    expect(config.PROCESS_NICE).toBe(10);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }, 'emails')).toMatchObject({ EMAILS_ROLE: 'all', PROCESS_NICE: 0 });
    const problems = problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://db/x', EMAILS_ROLE: 'both', PROCESS_NICE: '-5' }, 'emails'));
    expect(problems).toEqual([expect.stringMatching(/^PROCESS_NICE must be between 0 and 19, got -5/), expect.stringMatching(/^EMAILS_ROLE must be one of all, api, worker/)]);
    expect(problemsOf(() => loadConfig({ PROCESS_NICE: '20' }, 'gateway'))).toEqual(['PROCESS_NICE must be between 0 and 19, got 20']);
  });
});

describe(`${loadConfig.name}: servers and ports`, () => {
  it('refuses a NATS or SMTP relay URL that names no host, which would only fail later as "Invalid URL"', () => {
    expect(problemsOf(() => loadConfig({ NATS_URL: 'nats://' }, 'gateway'))).toEqual(["NATS_URL must name a host, got 'nats://'"]);
    const relay = { DATABASE_URL: 'postgres://db/x', DELIVERY_MODE: 'relay' };
    expect(problemsOf(() => loadConfig({ ...relay, SMTP_RELAY_URL: 'smtp://' }, 'emails'))).toEqual(["SMTP_RELAY_URL must name a host, got 'smtp://'"]);
    // A Postgres URL may leave the host to its `host` parameter (a Unix socket directory).
    expect(loadConfig({ DATABASE_URL: 'postgres:///mailroom?host=/var/run/postgresql' }, 'keys').DATABASE_URL).toBe('postgres:///mailroom?host=/var/run/postgresql');
  });

  it('names a malformed SMTP_RELAY_URL once, for what is wrong with it, not as missing', () => {
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://db/x', DELIVERY_MODE: 'relay', SMTP_RELAY_URL: 'relay.example.com:587' }, 'emails'))).toEqual([
      "SMTP_RELAY_URL must use smtp or smtps, got 'relay.example.com:'",
    ]);
  });

  it('refuses a gateway whose HTTP and operations ports are the same', () => {
    expect(problemsOf(() => loadConfig({ PORT: '8081' }, 'gateway'))).toEqual(['PORT and HEALTH_PORT must differ: both are 8081']);
    expect(loadConfig({ PORT: '0', HEALTH_PORT: '0' }, 'gateway').PORT).toBe(0);
  });

  it('gives `npm start` a fixed gateway port and an operations port per process that fit and miss it', () => {
    const launcher = (env: Record<string, string>) => launcherPortProblems(loadConfig(env, 'launcher'), 6);
    expect(launcher({ PORT: '0' })).toEqual(['PORT must not be 0 for npm start: it waits for the gateway on that port, so give it a fixed one']);
    expect(launcher({ HEALTH_PORT: '65531' })).toEqual([
      'HEALTH_PORT must be at most 65530 for npm start, which gives its 6 processes HEALTH_PORT to HEALTH_PORT+5, got 65531',
    ]);
    expect(launcher({ PORT: '8086' })).toEqual([
      'PORT 8086 is one of the operations ports npm start gives its processes (HEALTH_PORT 8081 to 8086); pick another PORT or HEALTH_PORT',
    ]);
    expect(launcher({ PORT: '3000', HEALTH_PORT: '0' })).toEqual([]);
    expect(launcher({ PORT: '8087' })).toEqual([]);
  });

  it('keeps the embedded Postgres, a local nats-server and the DKIM DNS server off the ports `npm start` gives its apps, and apart', () => {
    const launcher = (env: Record<string, string>) => launcherPortProblems(loadConfig(env, 'launcher'), 6);
    // Started there, it took the port first and the app that wanted it exited, stopping the stack with no word of why.
    expect(launcher({ EMBEDDED_PG_PORT: '3000' })).toEqual([
      'EMBEDDED_PG_PORT 3000 (the embedded Postgres) is PORT too; give each its own port',
    ]);
    expect(launcher({ NATS_URL: 'nats://127.0.0.1:8083' })).toEqual([
      "NATS_URL's port 8083 (a local nats-server) is one of the operations ports npm start gives its processes (HEALTH_PORT 8081 to 8086) too; give each its own port",
    ]);
    // Found answering there, the Postgres was taken for one npm start had left running and the migrations failed against NATS.
    expect(launcher({ NATS_URL: 'nats://localhost:5555', EMBEDDED_PG_PORT: '5555' })).toEqual([
      "NATS_URL's port 5555 (a local nats-server) is EMBEDDED_PG_PORT 5555 (the embedded Postgres) too; give each its own port",
    ]);
    // The domains service's DKIM DNS server (TCP as well as UDP) is one of the stack's listeners too.
    expect(launcher({ HEALTH_PORT: '5350' })).toEqual([
      "DKIM_DNS_BIND's port 5353 (the domains service's DNS server) is one of the operations ports npm start gives its processes (HEALTH_PORT 5350 to 5355) too; give each its own port",
    ]);
    expect(launcher({ DKIM_DNS_BIND: 'off', HEALTH_PORT: '5350' })).toEqual([]);
    // Neither runs here: a DATABASE_URL replaces the embedded Postgres, and a NATS elsewhere is not started.
    expect(launcher({ EMBEDDED_PG_PORT: '3000', DATABASE_URL: 'postgres://db.internal/x' })).toEqual([]);
    expect(launcher({ NATS_URL: 'nats://nats.internal:3000' })).toEqual([]);
    expect(launcher({ EMBEDDED_PG_PORT: '8083', HEALTH_PORT: '0' })).toEqual([]);
  });
});

describe(`${loadConfig.name}: SMTP_HELO_NAME`, () => {
  const emails = (value: string) => loadConfig({ DATABASE_URL: 'postgres://db/x', SMTP_HELO_NAME: value }, 'emails');

  it('takes a fully qualified name, an address literal, or nothing (the hostname)', () => {
    expect(emails('Mail.Example.com').SMTP_HELO_NAME).toBe('mail.example.com');
    expect(emails('[192.0.2.1]').SMTP_HELO_NAME).toBe('[192.0.2.1]');
    expect(emails('[IPv6:2001:db8::1]').SMTP_HELO_NAME).toBe('[IPv6:2001:db8::1]');
    expect(emails('   ').SMTP_HELO_NAME).toBe('');
  });

  it.each(['bad_name!', 'mailhost', 'mail.example.com.', '[not-an-ip]', 'mail example.com'])('refuses %p, which receivers would refuse in EHLO', (value) => {
    expect(problemsOf(() => emails(value))).toEqual([
      `SMTP_HELO_NAME must be a fully qualified host name such as mail.example.com or an address literal such as [192.0.2.1], got '${value}'`,
    ]);
  });
});

describe(`${loadConfig.name}: addresses to listen on and DATA_DIR`, () => {
  it('takes IPs and host names to listen on', () => {
    expect(loadConfig({ HOST: '::', HEALTH_HOST: '127.0.0.1' }, 'gateway')).toMatchObject({ HOST: '::', HEALTH_HOST: '127.0.0.1' });
    expect(loadConfig({ HOST: ' api.internal ' }, 'gateway').HOST).toBe('api.internal');
  });

  it('refuses a blank or spaced address and a blank DATA_DIR, naming the variable', () => {
    expect(problemsOf(() => loadConfig({ HOST: '  ', HEALTH_HOST: 'my host' }, 'gateway'))).toEqual([
      "HOST must be an IP address such as 0.0.0.0 or a host name, got '  '",
      "HEALTH_HOST must be an IP address such as 0.0.0.0 or a host name, got 'my host'",
    ]);
    expect(problemsOf(() => loadConfig({ DATA_DIR: ' ' }, 'launcher'))).toEqual(["DATA_DIR must not be blank, got ' '"]);
  });

  it('reads a DATA_DIR with white space around it (a line break a secrets file left) as the directory, as the README says of every value', () => {
    // Kept as written, it was a directory named '/srv/mailroom\n' beside the one meant, and the first start began afresh there.
    expect(loadConfig({ DATA_DIR: ' /srv/mailroom\n' }, 'launcher').DATA_DIR).toBe('/srv/mailroom');
  });
});

describe(`${loadConfig.name}: DKIM_DNS_BIND`, () => {
  const domains = (value: string) => loadConfig({ DATABASE_URL: 'postgres://db/x', DKIM_DNS_BIND: value }, 'domains');

  it('takes an address or host name to listen on with a port, or off', () => {
    expect(domains('0.0.0.0:5353').DKIM_DNS_BIND).toEqual({ host: '0.0.0.0', port: 5353 });
    expect(domains('[::]:53').DKIM_DNS_BIND).toEqual({ host: '::', port: 53 });
    expect(domains('dns.internal:5353').DKIM_DNS_BIND).toEqual({ host: 'dns.internal', port: 5353 });
    expect(domains('off').DKIM_DNS_BIND).toBeNull();
  });

  it('refuses a host it could not listen on at boot, naming the variable, as HOST and HEALTH_HOST do', () => {
    // Accepted, the domains service failed to bind only once Postgres, NATS and the migrations were up (npm start),
    // or, for a name whose last label is all digits, bound an address no one meant (3000 is 0.0.11.184).
    for (const value of ['my host:5353', '3000:53', '[nonsense]:53']) {
      expect(problemsOf(() => domains(value))).toEqual([expect.stringMatching(/^DKIM_DNS_BIND /)]);
    }
  });
});

describe(`${loadConfig.name}: NATS authentication and TLS`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-nats-config-'));
  const creds = join(dir, 'mailroom.creds');
  writeFileSync(creds, 'creds');

  it('takes a creds file and TLS files that exist', () => {
    const files = { NATS_CREDS_FILE: creds, NATS_TLS_CA_FILE: creds, NATS_TLS_CERT_FILE: creds, NATS_TLS_KEY_FILE: creds };
    expect(loadConfig(files, 'gateway')).toMatchObject(files);
  });

  it('names the variable of a file that does not exist', () => {
    const missing = join(dir, 'missing.pem');
    expect(problemsOf(() => loadConfig({ NATS_CREDS_FILE: missing, NATS_TLS_CA_FILE: missing }, 'gateway'))).toEqual([
      `NATS_CREDS_FILE names a file that does not exist: '${missing}'`,
      `NATS_TLS_CA_FILE names a file that does not exist: '${missing}'`,
    ]);
  });

  it('refuses two ways of authenticating, and a client certificate without its key', () => {
    expect(problemsOf(() => loadConfig({ NATS_URL: 'nats://app:secret@nats:4222', NATS_CREDS_FILE: creds }, 'gateway'))).toEqual([
      'NATS_CREDS_FILE and credentials in NATS_URL cannot both be set: give the server one way to authenticate the apps',
    ]);
    expect(problemsOf(() => loadConfig({ NATS_TLS_CERT_FILE: creds }, 'gateway'))).toEqual([
      'NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: set both for mutual TLS, or neither',
    ]);
  });

  it('never echoes the password of a NATS_URL it refuses', () => {
    expect(problemsOf(() => loadConfig({ NATS_URL: 'http://app:hunter2@nats:4222' }, 'gateway')).join('\n')).not.toContain('hunter2');
  });

  // A password from `openssl rand -base64` often holds a `/`; written into a URL unencoded, it makes the URL unparseable.
  it('never echoes a password with a `/` in it, of a connection string it cannot parse', () => {
    const problems = problemsOf(() =>
      loadConfig({ DATABASE_URL: 'postgres://mailroom:pg/Secret1@db:5432/mailroom', NATS_URL: 'nats://app:nats/Secret2@nats:4222' }, 'keys'),
    );
    expect(problems).toEqual(["NATS_URL must be a URL, got 'nats://***@nats:4222'", "DATABASE_URL must be a URL, got 'postgres://***@db:5432/mailroom'"]);
    const relay = problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://db/mailroom', DELIVERY_MODE: 'relay', SMTP_RELAY_URL: 'smtp://u:smtp/Secret3@relay:587' }, 'emails'));
    expect(relay).toEqual(["SMTP_RELAY_URL must be a URL, got 'smtp://***@relay:587'"]);
  });

  // node-postgres also takes the password (and sslpassword) from the query string.
  it('never echoes the query string of a connection string it cannot parse', () => {
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://db:54x32/mailroom?password=Secret5' }, 'keys'))).toEqual(["DATABASE_URL must be a URL, got 'postgres://db:54x32/mailroom?***'"]);
  });

  it('never echoes what comes before the @ of a connection string without a scheme', () => {
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'mail_room:Secret4@db:5432/mailroom' }, 'keys'))).toEqual(["DATABASE_URL must be a URL, got '***@db:5432/mailroom'"]);
  });

  // NATS and nodemailer percent-decode the user name and password when they connect: a bare % failed there, with
  // "URI malformed" that named no variable (NATS, at boot) or as every delivery failing (the SMTP relay).
  it('refuses a user name or password with a % that is not percent-encoding, and says how to write it', () => {
    const problems = problemsOf(() =>
      loadConfig({ DATABASE_URL: 'postgres://mailroom:50%off@db:5432/mailroom', NATS_URL: 'nats://a%zz:pw@nats:4222', DELIVERY_MODE: 'relay', SMTP_RELAY_URL: 'smtp://u:100%Secret@relay:587' }, 'emails'),
    );
    expect(problems).toEqual([
      "NATS_URL must have its user name and password percent-encoded (write % as %25, @ as %40, / as %2F), got 'nats://***@nats:4222'",
      "DATABASE_URL must have its user name and password percent-encoded (write % as %25, @ as %40, / as %2F), got 'postgres://***@db:5432/mailroom'",
      "SMTP_RELAY_URL must have its user name and password percent-encoded (write % as %25, @ as %40, / as %2F), got 'smtp://***@relay:587'",
    ]);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://mailroom:50%25off@db:5432/mailroom', NATS_URL: 'nats://a%2Fb:p%40w@nats:4222' }, 'keys')).not.toThrow();
  });
});

describe(`${loadConfig.name}: values a platform team might write wrong`, () => {
  const emails = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'postgres://db/x', ...env }, 'emails');

  // WHATWG URL ignores white space around a URL, so it passed the check, but the raw value went on: node-postgres
  // read ' postgres://…' as a database of that name on a host called "base", and a newline from a secrets file
  // ended up inside every tracking link.
  it('takes a URL with white space around it as the URL without it', () => {
    expect(loadConfig({ DATABASE_URL: ' postgres://u@db:5432/mailroom\n' }, 'keys').DATABASE_URL).toBe('postgres://u@db:5432/mailroom');
    expect(loadConfig({ NATS_URL: 'nats://nats:4222\n' }, 'gateway').NATS_URL).toBe('nats://nats:4222');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', TRACKING_BASE_URL: 'https://t.example.com\n' }, 'domains').TRACKING_BASE_URL).toBe('https://t.example.com');
    expect(emails({ DELIVERY_MODE: 'relay', SMTP_RELAY_URL: '\tsmtp://relay.example.com:587 ' }).SMTP_RELAY_URL).toBe('smtp://relay.example.com:587');
  });

  // WHATWG URL drops a tab or line break inside a URL without a word, so a broken line joined two halves silently.
  it('refuses a URL with a tab or line break inside it, naming the variable', () => {
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://u@db:5432/mail\nroom' }, 'keys'))).toEqual([
      "DATABASE_URL must not contain tabs or line breaks, got 'postgres://***@db:5432/mail\\nroom'",
    ]);
  });

  // An empty item was dropped in silence: '10.0.0.1,,10.0.0.2' read as two proxies, ',' as none.
  it.each([
    ['TRUSTED_PROXIES', '10.0.0.1,,10.0.0.2', 'gateway', 2],
    ['TRUSTED_PROXIES', '10.0.0.1,', 'gateway', 2],
    ['DNS_SERVERS', ',', 'emails', 1],
    ['DKIM_ZONE_NS', ' ,ns2.example.com', 'domains', 1],
  ] as const)('refuses an empty item in the list %s=%p', (name, value, app, item) => {
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://db/x', [name]: value }, app))).toEqual([`${name} item ${item}: is empty (remove the extra comma)`]);
  });

  it('still takes an empty or blank list as no items', () => {
    expect(loadConfig({ TRUSTED_PROXIES: ' ' }, 'gateway').TRUSTED_PROXIES).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.1 , 10.0.0.0/8 ' }, 'gateway').TRUSTED_PROXIES).toEqual(['10.0.0.1', '10.0.0.0/8']);
  });

  // getaddrinfo reads an all-numeric name as an IPv4 address ('3000' is 0.0.11.184, '1.5' is 1.0.0.5), so HOST=3000
  // (the port, in the wrong variable) failed in listen() with EADDRNOTAVAIL, naming no variable.
  it.each(['3000', '1.5', '10.1'])('refuses HOST=%p, an all-numeric name read as an IPv4 address', (value) => {
    expect(problemsOf(() => loadConfig({ HOST: value }, 'gateway'))).toEqual([`HOST must be an IP address such as 0.0.0.0 or a host name, got '${value}'`]);
  });

  // RFC 5321 §4.1.3: an address in EHLO goes in brackets; a bare one was sent as if it were a host name.
  it('refuses a bare IP address as SMTP_HELO_NAME and a numeric DNS_ZONE, neither of which is a host name', () => {
    expect(problemsOf(() => emails({ SMTP_HELO_NAME: '192.0.2.1' }))).toEqual([
      "SMTP_HELO_NAME must be a fully qualified host name such as mail.example.com or an address literal such as [192.0.2.1], got '192.0.2.1'",
    ]);
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://db/x', DKIM_ZONE: '10.1' }, 'domains'))).toEqual([
      "DKIM_ZONE '10.1' is not a DNS name such as dkim.mailroom.example.com (no trailing dot)",
    ]);
  });
});

describe(`${loadConfig.name}: DKIM_ZONE`, () => {
  const zone = (labels: number) => Array.from({ length: labels }, () => 'a'.repeat(53)).join('.');

  it('takes a zone that leaves room for the key label under it, and refuses a longer one', () => {
    // A key's name is a 35-character label under the zone: 35 + 1 + 217 is a name's 253 characters.
    const longest = `${zone(4)}.com`.slice(-217).replace(/^[^a-z]+/, '');
    expect(longest.length).toBeGreaterThan(210);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', DKIM_ZONE: longest }, 'domains').DKIM_ZONE).toBe(longest);
    const tooLong = `${zone(4)}.example.com`;
    expect(tooLong.length).toBeGreaterThan(217);
    expect(tooLong.length).toBeLessThanOrEqual(253);
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'postgres://db/x', DKIM_ZONE: tooLong }, 'domains'))).toEqual([
      `DKIM_ZONE must be at most 217 characters (got ${tooLong.length}): each key is published as a 35-character label under it, and a DNS name holds at most 253`,
    ]);
  });
});

describe(`${loadConfig.name}: TRACKING_BASE_URL`, () => {
  const domains = (value: string) => loadConfig({ DATABASE_URL: 'postgres://db/x', TRACKING_BASE_URL: value }, 'domains');

  it('takes a scheme, a host, a port and a path prefix', () => {
    expect(domains('https://links.example.com:8443/mailroom/').TRACKING_BASE_URL).toBe('https://links.example.com:8443/mailroom/');
  });

  // Links are the base with /o/… or /c/… appended: after a query or fragment they went to the wrong place
  // (https://t.example.com/?src=mail/o/… is the root page), and credentials went into every email sent.
  it.each([
    ['https://t.example.com/?src=mail', 'a query (?…)'],
    ['https://t.example.com/#top', 'a fragment (#…)'],
    ['https://user:pass@t.example.com', 'a user name or password'],
  ])('refuses %p, which has %s: every link would carry it', (value, part) => {
    expect(problemsOf(() => domains(value))).toEqual([expect.stringMatching(new RegExp(`^TRACKING_BASE_URL must not have ${part.replace(/[(?.)#]/g, '\\$&')}`))]);
  });
});
