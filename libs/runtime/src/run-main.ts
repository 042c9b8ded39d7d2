import { AppName, ConfigError, loadProcessConfig, MailroomConfig } from '@mailroom/config';
import { describeBootFailure } from './boot-failure';
import { lowerProcessPriority } from './process-priority';
import { Closable, closeOnSignals } from './shutdown';

/**
 * The body of every app's main.ts: validate the environment, boot, exit with a
 * clear message on bad config, and close gracefully on SIGTERM.
 */
export function runMain(app: AppName, boot: (config: MailroomConfig) => Promise<Closable>): void {
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
  try {
    lowerProcessPriority(config.PROCESS_NICE);
  } catch (error) {
    // Only an optimisation: an app that cannot lower its priority (a platform without nice) still runs.
    process.stderr.write(`[${app}] PROCESS_NICE=${config.PROCESS_NICE} could not be applied: ${(error as Error).message}\n`);
  }
  // Through a promise, so a boot that throws before its first await is reported like one that rejects.
  Promise.resolve(config).then(boot).then(
    (instance) => closeOnSignals(instance, app, config.SHUTDOWN_TIMEOUT_MS),
    (error: Error) => {
      process.stderr.write(`[${app}] failed to start: ${describeBootFailure(error, config)}\n`);
      process.exit(1);
    },
  );
}
