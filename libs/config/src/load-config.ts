import { AppName, ENV_SCHEMA, EnvName, MailroomConfig, VariableSpec } from './env-schema';
import { ruleProblems, usedBy } from './variable-rules';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
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
  problems.push(...ruleProblems(config, app));
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
