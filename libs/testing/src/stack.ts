import { INestApplicationContext } from '@nestjs/common';
import { AppName, configWith, EnvName, MailroomConfig } from '@mailroom/config';
import type { ApiKeyCreatedResponse } from '@mailroom/contracts';
import { bootstrapDomains } from '../../../apps/domains/src/bootstrap';
import { bootstrapEmails } from '../../../apps/emails/src/bootstrap';
import { bootstrapGateway } from '../../../apps/gateway/src/bootstrap';
import { bootstrapKeys } from '../../../apps/keys/src/bootstrap';
import { bootstrapWebhooks } from '../../../apps/webhook-dispatcher/src/bootstrap';
import { opsPortOf } from '@mailroom/runtime';
import { issueKeyDirectly } from '../../../scripts/issue-key';
import { migrateAll } from '../../../scripts/migrate-all';
import { ApiClient } from './api-client';
import { eventually } from './eventually';
import { createMigratedTestDatabase } from './migrated-template';
import { PrivateNats, PrivateNatsAccess, startPrivateNats } from './private-nats';
import { createTestDatabase, dropTestDatabase } from './test-postgres';

type ServiceApp = Exclude<AppName, 'launcher'>;

const BOOTSTRAP: Record<ServiceApp, (config: MailroomConfig) => Promise<INestApplicationContext>> = {
  keys: bootstrapKeys,
  domains: bootstrapDomains,
  emails: bootstrapEmails,
  'webhook-dispatcher': bootstrapWebhooks,
  gateway: bootstrapGateway,
};

export interface StackOptions {
  /** Apps to boot; all five by default. */
  apps?: ServiceApp[];
  /** Extra environment, validated exactly as at boot. */
  env?: Partial<Record<EnvName, string>>;
  /** Environment of one app only, over `env`: apps that disagree (a different ENCRYPTION_KEY, say). */
  appEnv?: Partial<Record<ServiceApp, Partial<Record<EnvName, string>>>>;
  /** Makes the private nats-server require these credentials; the apps get them in NATS_URL. */
  natsAccess?: PrivateNatsAccess;
  /** `user:pass` an app puts in its NATS_URL, for a server whose configuration has a user per app. */
  natsUsers?: Partial<Record<ServiceApp, string>>;
  /** The NATS_URL every app gets, from the server once it runs (a tls:// one, say); `nats.url` by default. */
  natsUrl?: (nats: PrivateNats) => string;
  /** The ICU locale of the database's default collation (`en-US`); the server's own (C here) by default. */
  databaseIcuLocale?: string;
}

export interface Stack {
  baseUrl: string;
  databaseUrl: string;
  nats: PrivateNats;
  /** A full-access live key. */
  rootKey: string;
  api: ApiClient;
  configFor(app: ServiceApp): MailroomConfig;
  issueKey(input?: Partial<Parameters<typeof issueKeyDirectly>[1]>): Promise<ApiKeyCreatedResponse>;
  /** http://127.0.0.1:<ops port> of a running app: /health/live, /health/ready, /metrics. */
  opsUrl(app: ServiceApp): string;
  startApp(app: ServiceApp): Promise<void>;
  stopApp(app: ServiceApp): Promise<void>;
  stop(): Promise<void>;
}

/** A copy of the run's migrated template; a database in another locale cannot be one, and is migrated here. */
async function migratedDatabase(icuLocale: string | undefined): Promise<string> {
  if (icuLocale === undefined) return createMigratedTestDatabase();
  const databaseUrl = await createTestDatabase({ icuLocale });
  await migrateAll(databaseUrl);
  return databaseUrl;
}

/**
 * Boots the real apps in this process against a fresh Postgres database and a
 * private nats-server, exactly as their main.ts would, only with config passed
 * in rather than read from process.env.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const apps = options.apps ?? (['keys', 'domains', 'emails', 'webhook-dispatcher', 'gateway'] as ServiceApp[]);
  const databaseUrl = await migratedDatabase(options.databaseIcuLocale);
  const nats = await startPrivateNats(options.natsAccess);
  const running = new Map<ServiceApp, INestApplicationContext>();
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    NATS_URL: options.natsUrl?.(nats) ?? nats.url,
    HOST: '127.0.0.1',
    PORT: '0',
    HEALTH_PORT: '0',
    HEALTH_HOST: '127.0.0.1',
    // Suites make bursts of requests with one key; the rate limit has its own suite.
    RATE_LIMIT_PER_SECOND: '0',
    ...options.env,
  } as Partial<Record<EnvName, string>>;
  const natsUrlOf = (app: ServiceApp) => {
    const user = options.natsUsers?.[app];
    return user ? { NATS_URL: nats.bareUrl.replace('nats://', `nats://${user}@`) } : {};
  };
  const configFor = (app: ServiceApp) => configWith(app, Object.assign({}, env, natsUrlOf(app), options.appEnv?.[app]));

  let baseUrl = '';
  const startApp = async (app: ServiceApp) => {
    const instance = await BOOTSTRAP[app](configFor(app));
    running.set(app, instance);
    if (app === 'gateway') {
      const url = await (instance as unknown as { getUrl(): Promise<string> }).getUrl();
      baseUrl = url.replace('[::1]', '127.0.0.1');
    }
  };
  const stopApp = async (app: ServiceApp) => {
    await running.get(app)?.close();
    running.delete(app);
  };

  try {
    for (const app of apps) await startApp(app);
  } catch (error) {
    // Apps already running hold NATS and Postgres connections, and would keep Jest from ever exiting.
    for (const app of [...running.keys()].reverse()) await stopApp(app).catch(() => undefined);
    await nats.destroy();
    await dropTestDatabase(databaseUrl).catch(() => undefined);
    throw error;
  }
  const root = await issueKeyDirectly(databaseUrl, {
    name: 'root',
    mode: 'live',
    permissions: ['*'],
    domainRestrictions: [],
    ipRestrictions: [],
    expiresAt: null,
  });
  const api = new ApiClient(baseUrl, root.key);
  if (running.has('gateway') && apps.length === 5) {
    await eventually(async () => (await api.get('/health', { key: null })).status === 200, 15000);
  }

  return {
    get baseUrl() {
      return baseUrl;
    },
    databaseUrl,
    nats,
    rootKey: root.key,
    api,
    configFor,
    issueKey: (input = {}) =>
      issueKeyDirectly(databaseUrl, {
        name: 'test key',
        mode: 'live',
        permissions: ['*'],
        domainRestrictions: [],
        ipRestrictions: [],
        expiresAt: null,
        ...input,
      }),
    opsUrl: (app) => {
      const instance = running.get(app);
      const port = instance && opsPortOf(instance);
      if (!port) throw new Error(`${app} is not running`);
      return `http://127.0.0.1:${port}`;
    },
    startApp,
    stopApp,
    stop: async () => {
      for (const app of [...running.keys()].reverse()) await stopApp(app);
      await nats.destroy();
      await dropTestDatabase(databaseUrl);
    },
  };
}
