import { AppName, ENV_SCHEMA, EnvName, MailroomConfig, VariableSpec } from './env-schema';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function usedBy(spec: VariableSpec<unknown>, app: AppName): boolean {
  return spec.apps === 'all' || spec.apps.includes(app);
}

/**
 * Reads and validates the environment once, for one app, and reports every
 * problem at once. Variables the app does not use keep their defaults but
 * are still validated when set, so a typo fails early wherever it is read.
 */
export function loadConfig(env: Record<string, string | undefined>, app: AppName): MailroomConfig {
  const problems: string[] = [];
  const config: Partial<Record<EnvName, unknown>> = {};
  for (const [name, spec] of Object.entries(ENV_SCHEMA) as [EnvName, VariableSpec<unknown>][]) {
    const raw = env[name] === undefined || env[name] === '' ? spec.default : env[name];
    if (raw === undefined) {
      if (usedBy(spec, app)) problems.push(`${name} is required (${spec.description})`);
      continue;
    }
    try {
      config[name] = spec.parse(raw);
    } catch (error) {
      problems.push(`${name} ${(error as Error).message}`);
    }
  }
  // Rules between variables, checked with the rest so the app says so instead of failing later with a stack trace.
  if (usedBy(ENV_SCHEMA.SMTP_RELAY_URL, app) && config.DELIVERY_MODE === 'relay' && !config.SMTP_RELAY_URL) {
    problems.push('SMTP_RELAY_URL is required when DELIVERY_MODE=relay (smtp://user:pass@host:587 or smtps://…:465)');
  }
  if (usedBy(ENV_SCHEMA.ENCRYPTION_KEY, app) && config.NODE_ENV === 'production' && config.ENCRYPTION_KEY === null) {
    problems.push('ENCRYPTION_KEY is required when NODE_ENV=production (base64 of 32 random bytes: openssl rand -base64 32)');
  }
  if (problems.length) throw new ConfigError(problems);
  return config as MailroomConfig;
}

/** A config for tests and tools: the defaults, with overrides. */
export function configWith(app: AppName, overrides: Partial<Record<EnvName, string>>): MailroomConfig {
  return loadConfig({ ...overrides }, app);
}

/** The one place that reads process.env. */
export function loadProcessConfig(app: AppName): MailroomConfig {
  return loadConfig(process.env, app);
}
