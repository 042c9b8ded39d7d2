import { AppName, ENV_SCHEMA, EnvName, MailroomConfig, VariableSpec } from './env-schema';


export function usedBy(spec: VariableSpec<unknown>, app: AppName): boolean {
  return spec.apps === 'all' || spec.apps.includes(app);
}

/**
 * Rules between variables, checked with the rest so the app says so instead
 * of failing later with a stack trace. A variable that failed to parse is
 * missing from `config` and already named, so no rule speaks of it again.
 */
export function ruleProblems(config: Partial<Record<EnvName, unknown>>, app: AppName): string[] {
  const problems: string[] = [];
  if (usedBy(ENV_SCHEMA.SMTP_RELAY_URL, app) && config.DELIVERY_MODE === 'relay' && config.SMTP_RELAY_URL === '') {
    problems.push('SMTP_RELAY_URL is required when DELIVERY_MODE=relay (smtp://user:pass@host:587 or smtps://…:465)');
  }
  if (usedBy(ENV_SCHEMA.ENCRYPTION_KEY, app) && config.NODE_ENV === 'production' && config.ENCRYPTION_KEY === null) {
    problems.push('ENCRYPTION_KEY is required when NODE_ENV=production (base64 of 32 random bytes: openssl rand -base64 32)');
  }
  if (usedBy(ENV_SCHEMA.ENCRYPTION_KEY_PREVIOUS, app)) problems.push(...previousKeyProblems(config));
  problems.push(...natsAuthProblems(config));
  const { PORT: port, HEALTH_PORT: healthPort } = config as Partial<Pick<MailroomConfig, 'PORT' | 'HEALTH_PORT'>>;
  if (port === undefined || healthPort === undefined) return problems;
  if (app === 'gateway' && port !== 0 && port === healthPort) problems.push(`PORT and HEALTH_PORT must differ: both are ${port}`);
  return problems;
}

/**
 * The rules between variables of the apps `npm start` runs, checked by the
 * launcher before it starts anything: otherwise Postgres, NATS and the
 * migrations come up first and the stack goes down again when one app refuses
 * its configuration. A problem several apps share is said once. Each app gets
 * an operations port of its own there, so the gateway's PORT/HEALTH_PORT rule
 * gives way to launcherPortProblems.
 */
export function launchedAppsRuleProblems(config: MailroomConfig, apps: readonly AppName[]): string[] {
  const withoutOpsPort: Partial<Record<EnvName, unknown>> = Object.assign({}, config, { HEALTH_PORT: undefined });
  return [...new Set(apps.flatMap((app) => ruleProblems(withoutOpsPort, app)))];
}

/** Host names of a NATS_URL for which `npm start` runs nats-server itself when nothing answers there (WHATWG URL keeps IPv6 in brackets). */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1', '[::1]'];

type LauncherPorts = Pick<MailroomConfig, 'PORT' | 'HEALTH_PORT' | 'DATABASE_URL' | 'EMBEDDED_PG_PORT' | 'NATS_URL' | 'DKIM_DNS_BIND'>;

/** The servers `npm start` runs on this host besides the apps' HTTP ports, or reuses when one already answers there. */
function localServers(config: LauncherPorts): { name: string; port: number }[] {
  const servers: { name: string; port: number }[] = [];
  if (!config.DATABASE_URL) servers.push({ name: `EMBEDDED_PG_PORT ${config.EMBEDDED_PG_PORT} (the embedded Postgres)`, port: config.EMBEDDED_PG_PORT });
  const nats = new URL(config.NATS_URL);
  const natsPort = Number(nats.port || 4222);
  if (LOOPBACK_HOSTS.includes(nats.hostname)) servers.push({ name: `NATS_URL's port ${natsPort} (a local nats-server)`, port: natsPort });
  const dns = config.DKIM_DNS_BIND;
  if (dns && dns.port !== 0) servers.push({ name: `DKIM_DNS_BIND's port ${dns.port} (the domains service's DNS server)`, port: dns.port });
  return servers;
}

/**
 * What `npm start` needs of its ports on top of their own ranges (the migrate
 * and cli commands share the launcher's config but open no port, so these are
 * not rules of loadConfig): a fixed gateway port to wait for, room for the
 * operations ports without taking the gateway's, and the embedded Postgres, a
 * local nats-server and the DKIM DNS server on ports of their own. Started on
 * an app's port, one took it first and the app exited, stopping the stack
 * without saying why.
 */
export function launcherPortProblems(config: LauncherPorts, processes: number): string[] {
  const { PORT: port, HEALTH_PORT: healthPort } = config;
  const lastHealthPort = healthPort + processes - 1;
  if (port === 0) return ['PORT must not be 0 for npm start: it waits for the gateway on that port, so give it a fixed one'];
  if (healthPort !== 0 && lastHealthPort > 65535) {
    return [`HEALTH_PORT must be at most ${65536 - processes} for npm start, which gives its ${processes} processes HEALTH_PORT to HEALTH_PORT+${processes - 1}, got ${healthPort}`];
  }
  const opsPorts = `the operations ports npm start gives its processes (HEALTH_PORT ${healthPort} to ${lastHealthPort})`;
  const isOpsPort = (candidate: number) => healthPort !== 0 && candidate >= healthPort && candidate <= lastHealthPort;
  const problems: string[] = [];
  if (isOpsPort(port)) problems.push(`PORT ${port} is one of ${opsPorts}; pick another PORT or HEALTH_PORT`);
  const servers = localServers(config);
  for (const [index, server] of servers.entries()) {
    const earlier = servers.slice(0, index).find((other) => other.port === server.port);
    const taken = server.port === port ? 'PORT' : isOpsPort(server.port) ? `one of ${opsPorts}` : earlier?.name;
    if (taken) problems.push(`${server.name} is ${taken} too; give each its own port`);
  }
  return problems;
}

/**
 * Keys ENCRYPTION_KEY_PREVIOUS lists only open, so each must be a key other than ENCRYPTION_KEY (compared as
 * bytes: the same key may be written with or without padding) and be listed once. Without ENCRYPTION_KEY the
 * apps would seal new secrets with the public development key while opening the old ones: in production the
 * missing ENCRYPTION_KEY is already the problem.
 */
function previousKeyProblems(config: Partial<Record<EnvName, unknown>>): string[] {
  const previous = config.ENCRYPTION_KEY_PREVIOUS as string[] | undefined;
  if (!previous?.length || !('ENCRYPTION_KEY' in config)) return [];
  const current = config.ENCRYPTION_KEY as string | null;
  if (current === null) {
    if (config.NODE_ENV === 'production') return [];
    return ['ENCRYPTION_KEY_PREVIOUS needs ENCRYPTION_KEY: previous keys only open secrets, and new ones would be sealed with the public development key'];
  }
  const hex = (key: string) => Buffer.from(key, 'base64').toString('hex');
  const problems: string[] = [];
  previous.forEach((key, index) => {
    const earlier = previous.slice(0, index).findIndex((other) => hex(other) === hex(key));
    if (hex(key) === hex(current)) problems.push(`ENCRYPTION_KEY_PREVIOUS item ${index + 1} is ENCRYPTION_KEY itself: list only keys that ENCRYPTION_KEY replaced (or will replace)`);
    else if (earlier >= 0) problems.push(`ENCRYPTION_KEY_PREVIOUS item ${index + 1} repeats item ${earlier + 1}`);
  });
  return problems;
}

/**
 * nats.js would silently prefer one way of authenticating over the other, and
 * a client certificate without its key (or the reverse) cannot be presented.
 */
function natsAuthProblems(config: Partial<Record<EnvName, unknown>>): string[] {
  const problems: string[] = [];
  const url = typeof config.NATS_URL === 'string' ? new URL(config.NATS_URL) : undefined;
  if (url && url.username !== '' && config.NATS_CREDS_FILE) {
    problems.push('NATS_CREDS_FILE and credentials in NATS_URL cannot both be set: give the server one way to authenticate the apps');
  }
  if (typeof config.NATS_TLS_CERT_FILE === 'string' && typeof config.NATS_TLS_KEY_FILE === 'string' && !config.NATS_TLS_CERT_FILE !== !config.NATS_TLS_KEY_FILE) {
    problems.push('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: set both for mutual TLS, or neither');
  }
  return problems;
}
