import { AppName, ConfigError, loadProcessConfig, MailroomConfig } from '@mailroom/config';

/** The body of every app's main.ts: validate the environment, boot, and exit with a clear message on bad config. */
export function runMain(app: AppName, boot: (config: MailroomConfig) => Promise<unknown>): void {
  let config: MailroomConfig;
  try {
    config = loadProcessConfig(app);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`[${app}] ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  boot(config).catch((error: Error) => {
    process.stderr.write(`[${app}] failed to start: ${error.message}\n`);
    process.exit(1);
  });
}
