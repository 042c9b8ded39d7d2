import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { AppName, ENV_SCHEMA } from '@mailroom/config';
import { configProblems, isKnownVariable, variableProblem } from './test/known-env';
import { EMAILS_ON_ONE_HOST } from '../local/stack-processes';

interface ComposeService {
  image?: string;
  build?: { context: string } | string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  read_only?: boolean;
  stop_grace_period?: string;
}

/** Compose service name → the app its container runs: the emails app runs twice, as npm start runs it. */
const APP_OF: Record<string, string> = { keys: 'keys', domains: 'domains', emails: 'emails', 'emails-worker': 'emails', 'webhook-dispatcher': 'webhook-dispatcher', gateway: 'gateway' };
const APPS = Object.keys(APP_OF);
const SERVICE_APPS = APPS.filter((app) => app !== 'gateway');

// `merge: true` resolves the file's `<<:` anchors as Docker Compose does.
const compose = parse(readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;

/** Compose interpolation for the forms the file uses: ${NAME:-default} takes the default when NAME is unset. */
function interpolate(value: string): string {
  return value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
}

describe('docker-compose.yml', () => {
  it('brings up Postgres, NATS with JetStream, Mailpit, the migrations and the five apps', () => {
    expect(Object.keys(services).sort()).toEqual(['domains', 'emails', 'emails-worker', 'gateway', 'keys', 'mailpit', 'migrate', 'nats', 'postgres', 'webhook-dispatcher']);
    expect(services.nats.command).toContain('-js');
    expect(services.mailpit.ports).toContain('8025:8025');
    expect(services.gateway.ports).toContain('3000:3000');
  });

  it('pins every third-party image and builds one Mailroom image for all apps', () => {
    for (const name of ['postgres', 'nats', 'mailpit']) expect(services[name].image).toMatch(/^[\w./-]+:v?\d[\w.-]*$/);
    for (const name of [...APPS, 'migrate']) {
      expect({ name, image: services[name].image, build: services[name].build }).toEqual({ name, image: 'mailroom:local', build: { context: '.' } });
      expect(services[name].read_only).toBe(true);
    }
  });

  it('runs each app by name through the entrypoint, and migrations once', () => {
    for (const app of APPS) expect({ app, command: services[app].command }).toEqual({ app, command: [APP_OF[app]] });
    expect(services.migrate.command).toEqual(['migrate']);
    expect(services.migrate.restart).toBe('no');
  });

  it('configures the apps with variables libs/config knows and values it accepts', () => {
    for (const name of [...APPS, 'migrate']) {
      const environment = Object.entries(services[name].environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]);
      expect({ name, unknown: environment.filter(([key]) => !isKnownVariable(key)).map(([key]) => key) }).toEqual({ name, unknown: [] });
      expect({ name, problems: environment.map(([key, value]) => variableProblem(key, value)).filter(Boolean) }).toEqual({ name, problems: [] });
      if (APPS.includes(name)) expect({ name, problems: configProblems(Object.fromEntries(environment), APP_OF[name] as AppName) }).toEqual({ name, problems: [] });
    }
  });

  it('gives every app time to finish its work in flight before Docker kills it', () => {
    for (const app of APPS) {
      const environment = services[app].environment ?? {};
      const shutdownMs = Number(environment.SHUTDOWN_TIMEOUT_MS ?? ENV_SCHEMA.SHUTDOWN_TIMEOUT_MS.default);
      // Docker's default is 10 s: an emails app still in an SMTP conversation would be killed mid-delivery.
      const graceMs = 1000 * Number(/^(\d+)s$/.exec(services[app].stop_grace_period ?? '10s')?.[1]);
      expect({ app, roomMs: graceMs - shutdownMs >= 3000 }).toEqual({ app, roomMs: true });
    }
  });

  it('points the apps at the compose services and relays all mail to Mailpit', () => {
    for (const name of [...APPS, 'migrate']) {
      const environment = services[name].environment ?? {};
      expect(environment.NATS_URL).toBe('nats://nats:4222');
      expect(new URL(environment.DATABASE_URL).host).toBe('postgres:5432');
    }
    expect(services['emails-worker'].environment).toMatchObject({ DELIVERY_MODE: 'relay', SMTP_RELAY_URL: 'smtp://mailpit:1025' });
    const key = Buffer.from(interpolate(services.domains.environment?.ENCRYPTION_KEY ?? ''), 'base64');
    expect(key.length).toBe(32);
  });

  it('runs the emails service as npm start does: requests in one container, the background work in another at a lower priority', () => {
    const roleOf = (name: string) => ({ role: services[name].environment?.EMAILS_ROLE, nice: services[name].environment?.PROCESS_NICE });
    const launched = Object.fromEntries(EMAILS_ON_ONE_HOST.map(({ name, env }) => [name, { role: env.EMAILS_ROLE, nice: env.PROCESS_NICE }]));
    expect({ emails: roleOf('emails'), 'emails-worker': roleOf('emails-worker') }).toEqual(launched);
    // The worker delivers through Mailpit, so it waits for it; the api process sends nothing.
    expect(services['emails-worker'].depends_on).toMatchObject({ mailpit: { condition: 'service_healthy' } });
    expect(services.gateway.depends_on).toMatchObject({ emails: { condition: 'service_started' }, 'emails-worker': { condition: 'service_started' } });
  });

  it('health-checks every long-running service with a command the image can run', () => {
    for (const [name, service] of Object.entries(services).filter(([name]) => name !== 'migrate')) {
      expect({ name, test: service.healthcheck?.test[0] }).toEqual({ name, test: 'CMD' });
    }
    for (const app of SERVICE_APPS) {
      expect(services[app].healthcheck?.test).toEqual(['CMD', 'node', 'docker/healthcheck.js', `http://127.0.0.1:${services[app].environment?.HEALTH_PORT}/health/ready`]);
    }
    expect(services.gateway.healthcheck?.test).toEqual(['CMD', 'node', 'docker/healthcheck.js', 'http://127.0.0.1:3000/health']);
  });

  it('starts the services after healthy Postgres and NATS and completed migrations', () => {
    for (const app of SERVICE_APPS) {
      expect(services[app].depends_on).toMatchObject({
        postgres: { condition: 'service_healthy' },
        nats: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
      });
    }
    expect(services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect({ name, dependency, exists: dependency in services }).toEqual({ name, dependency, exists: true });
        if (condition === 'service_healthy') expect({ name, dependency, healthcheck: Boolean(services[dependency].healthcheck) }).toEqual({ name, dependency, healthcheck: true });
        expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(condition);
      }
    }
  });
});
