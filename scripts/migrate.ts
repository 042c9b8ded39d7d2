import './register-paths';
import { ConfigError, loadProcessConfig } from '@mailroom/config';
import { migrateAll } from './migrate-all';

/** `npm run migrate`: what the Kubernetes migrations Job runs. */
async function main(): Promise<void> {
  const config = loadProcessConfig('launcher');
  if (!config.DATABASE_URL) throw new ConfigError(['DATABASE_URL is required for npm run migrate']);
  await migrateAll(config.DATABASE_URL, (line) => process.stdout.write(`migrate ${line}\n`));
}

main().catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(error instanceof ConfigError ? 78 : 1);
});
