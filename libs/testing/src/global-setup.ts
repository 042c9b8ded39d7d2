import { spawnSync } from 'node:child_process';
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
}
