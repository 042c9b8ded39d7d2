import { asBoolean, asInteger, asIpOrCidr, asList, asOneOf, asString, asUrl, Parser } from './parsers';

export type AppName = 'gateway' | 'keys' | 'domains' | 'emails' | 'webhook-dispatcher' | 'launcher';

export interface VariableSpec<T> {
  /** The default as written in the environment; undefined means required where used. */
  default?: string;
  /** Apps that read it; the README's configuration table lists the same. */
  apps: readonly AppName[] | 'all';
  description: string;
  parse: Parser<T>;
}

function variable<T>(spec: VariableSpec<T>): VariableSpec<T> {
  return spec;
}

const SERVICES: AppName[] = ['keys', 'domains', 'emails', 'webhook-dispatcher'];

/**
 * Every environment variable Mailroom reads. A unit test checks that each
 * name appears in the README's configuration table.
 */
export const ENV_SCHEMA = {
  NODE_ENV: variable({ default: 'development', apps: 'all', description: 'development, test or production', parse: asOneOf('development', 'test', 'production') }),
  LOG_LEVEL: variable({ default: 'info', apps: 'all', description: 'pino log level', parse: asOneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent') }),
  NATS_URL: variable({ default: 'nats://127.0.0.1:4222', apps: 'all', description: 'NATS server (JetStream enabled)', parse: asUrl('nats', 'tls') }),
  DATABASE_URL: variable({ apps: SERVICES, description: 'PostgreSQL connection string; `npm start`, `npm run cli` use an embedded Postgres under DATA_DIR when unset', parse: asUrl('postgres', 'postgresql') }),
  PORT: variable({ default: '3000', apps: ['gateway'], description: 'HTTP port of the gateway', parse: asInteger(0, 65535) }),
  HOST: variable({ default: '0.0.0.0', apps: ['gateway'], description: 'HTTP bind address of the gateway', parse: asString }),
  RPC_TIMEOUT_MS: variable({ default: '5000', apps: ['gateway'], description: 'how long the gateway waits for a service before answering 503 service_unavailable', parse: asInteger(50, 120000) }),
  HEALTH_TIMEOUT_MS: variable({ default: '1000', apps: ['gateway'], description: 'how long GET /health waits for each service', parse: asInteger(50, 30000) }),
  BODY_LIMIT_BYTES: variable({ default: '10485760', apps: ['gateway'], description: 'largest accepted request body; larger answers 413 payload_too_large', parse: asInteger(1024, 104857600) }),
  TEST_MODE_ENABLED: variable({ default: 'true', apps: ['gateway'], description: 'when false, test keys (mr_test_…) answer 401', parse: asBoolean }),
  TRUSTED_PROXIES: variable({ default: '', apps: ['gateway'], description: 'comma-separated IPs/CIDRs whose X-Forwarded-For is honoured', parse: asList(asIpOrCidr) }),
  KEY_CACHE_TTL_MS: variable({ default: '30000', apps: ['gateway'], description: 'how long a verified key is cached; changes and deletions also evict it at once over NATS', parse: asInteger(0, 3600000) }),
  LAST_USED_FLUSH_MS: variable({ default: '5000', apps: ['gateway'], description: 'how often the gateway reports which keys were used (lastUsedAt)', parse: asInteger(100, 600000) }),
  OUTBOX_POLL_MS: variable({ default: '100', apps: ['domains', 'emails'], description: 'how often the outbox relay looks for events to publish to JetStream', parse: asInteger(10, 60000) }),
  DATA_DIR: variable({ default: '.data', apps: ['launcher'], description: 'where `npm start` keeps the embedded Postgres and NATS data', parse: asString }),
  EMBEDDED_PG_PORT: variable({ default: '54329', apps: ['launcher'], description: 'port of the embedded Postgres that `npm start` runs when DATABASE_URL is unset', parse: asInteger(1, 65535) }),
} satisfies Record<string, VariableSpec<unknown>>;

export type EnvName = keyof typeof ENV_SCHEMA;
export type MailroomConfig = {
  [K in EnvName]: (typeof ENV_SCHEMA)[K] extends VariableSpec<infer T> ? T : never;
};
