import { dropMigratedTemplate } from './migrated-template';

/** Runs once after the e2e suites: drops what the global setup made for them. */
export default async function globalTeardown(): Promise<void> {
  await dropMigratedTemplate();
}
