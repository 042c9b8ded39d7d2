import { AppName, ConfigError, ENV_SCHEMA, loadConfig } from '@mailroom/config';
import { configFor, Container } from './k8s-queries';
import type { K8sObject } from './render-kustomize';

export function isKnownVariable(name: string): boolean {
  return name in ENV_SCHEMA;
}

/** Valid stand-ins for the Secret's keys, which are created outside git in production. */
const SECRET_STAND_INS: Record<string, string> = {
  DATABASE_URL: 'postgres://mailroom:secret@mailroom-db-rw:5432/mailroom',
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  SMTP_RELAY_URL: 'smtp://relay.example.com:587',
};

/** A Secret key's value where the rendered objects hold the Secret (the dev overlay generates one). */
function secretValue(objects: K8sObject[], name: string, key: string): string | undefined {
  const data = objects.find((object) => object.kind === 'Secret' && object.metadata.name === name)?.data as Record<string, string> | undefined;
  return data?.[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8');
}

/**
 * The environment a container starts with: its ConfigMaps, its literal
 * values, and its Secret keys: their values where the Secret is rendered,
 * else a valid stand-in for a required key (an optional one is left out, as
 * a Secret without it would leave it).
 */
export function containerEnvironment(objects: K8sObject[], container: Container): Record<string, string> {
  const environment = configFor(objects, container);
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    const value = variable.value ?? (ref && secretValue(objects, ref.name, ref.key)) ?? (ref && !ref.optional ? (SECRET_STAND_INS[ref.key] ?? `(no stand-in for Secret key ${ref.key})`) : undefined);
    if (value !== undefined) environment[variable.name] = value;
  }
  return environment;
}

/** What the app's own boot validation (exit 78) would say of this environment. */
export function configProblems(environment: Record<string, string>, app: AppName): string[] {
  try {
    loadConfig(environment, app);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

/** The libs/config parser's complaint about a value, or null when it parses (or the variable is not declared yet). */
export function variableProblem(name: string, value: string): string | null {
  const spec = (ENV_SCHEMA as Record<string, { parse(raw: string): unknown }>)[name];
  if (!spec) return null;
  try {
    spec.parse(value);
    return null;
  } catch (error) {
    return `${name} ${(error as Error).message}`;
  }
}
