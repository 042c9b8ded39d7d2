import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppName, configWith } from '@mailroom/config';
import { bootstrapDomains } from '../apps/domains/src/bootstrap';
import { bootstrapEmails } from '../apps/emails/src/bootstrap';
import { bootstrapKeys } from '../apps/keys/src/bootstrap';
import { bootstrapWebhooks } from '../apps/webhook-dispatcher/src/bootstrap';

// The queue group a service subscribes in is the name it gives createServiceApp; nothing is booted here.
const createServiceApp = jest.fn();
jest.mock('@mailroom/runtime', () => ({ ...jest.requireActual('@mailroom/runtime'), createServiceApp: (name: string) => createServiceApp(name) }));

const BOOTSTRAPS: Record<string, (config: ReturnType<typeof configWith>) => unknown> = {
  keys: bootstrapKeys,
  domains: bootstrapDomains,
  emails: bootstrapEmails,
  'webhook-dispatcher': bootstrapWebhooks,
};

/** The README's Securing NATS table: app → the queue group its "(queue `x`)" names. */
function readmeQueueGroups(): Record<string, string> {
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const section = /^### Securing NATS\n([\s\S]*?)\n## /m.exec(readme)?.[1] ?? '';
  return Object.fromEntries([...section.matchAll(/^\| ([a-z-]+) \|[^\n]*\(queue `([a-z-]+)`\)/gm)].map(([, app, queue]) => [app, queue]));
}

describe('README Securing NATS table', () => {
  it('names the queue group each service subscribes to its requests in', () => {
    const queues = Object.fromEntries(
      Object.entries(BOOTSTRAPS).map(([app, bootstrap]) => {
        createServiceApp.mockClear();
        bootstrap(configWith(app as AppName, { DATABASE_URL: 'postgres://mailroom@127.0.0.1:5432/mailroom' }));
        return [app, createServiceApp.mock.calls[0]?.[0]];
      }),
    );
    expect(readmeQueueGroups()).toEqual(queues);
  });
});
