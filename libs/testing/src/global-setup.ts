import { spawnSync } from 'node:child_process';
import { buildApps } from './app-process';
import { createMigratedTemplate } from './migrated-template';
import { adminDatabaseUrl, postgresAnswers } from './test-postgres';

/**
 * Runs once before the e2e suites. It uses the PostgreSQL at TEST_DATABASE_URL
 * (default: the local server, user postgres) and needs the nats-server binary,
 * since every suite starts a private NATS. It fails early with what to install.
 */
export default async function globalSetup(): Promise<void> {
  if (!(await postgresAnswers(adminDatabaseUrl()))) {
    throw new Error(
      `E2E tests need PostgreSQL at ${adminDatabaseUrl()} (set TEST_DATABASE_URL). ` +
        'On Debian: apt-get install postgresql && pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start.',
    );
  }
  if (spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('E2E tests need the nats-server binary on PATH (Debian: apt-get install nats-server).');
  }
  // Suites that run an app as its own process (dist/) need the build. Done once here, before any suite runs, so
  // no suite starts a process from dist/ while another suite's tsc is rewriting it, and no suite's hook spends its
  // timeout on a whole build (minutes on a loaded 2-core machine with a fresh checkout).
  buildApps();
  // After the build: it migrates with dist/scripts/migrate.js.
  await createMigratedTemplate();
}
