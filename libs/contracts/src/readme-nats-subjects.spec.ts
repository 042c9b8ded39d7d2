import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AnalyticsSubjects,
  DomainBroadcasts,
  DomainEvents,
  DomainsSubjects,
  EmailsSubjects,
  EVENT_TYPES,
  GatewayEvents,
  HealthSubjects,
  KeysEvents,
  KeysSubjects,
  TrackingSubjects,
  WebhooksSubjects,
} from '.';

/** Every subject an app publishes, requests or subscribes to, as libs/contracts names them. */
const SUBJECTS: string[] = [
  ...[KeysSubjects, KeysEvents, DomainsSubjects, DomainEvents, DomainBroadcasts, EmailsSubjects, TrackingSubjects, AnalyticsSubjects, WebhooksSubjects, HealthSubjects, GatewayEvents].flatMap(
    (subjects) => Object.values(subjects),
  ),
  ...EVENT_TYPES,
];

/**
 * The subject patterns of the README's "NATS subjects" table: a row's first
 * cell lists `full.subject`s, `.verb` shorthands for the one before with its
 * last token replaced, `*` for one token and `<service>` for a service name.
 */
function readmeSubjectRows(): { cell: string; patterns: RegExp[] }[] {
  const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  const section = /^### NATS subjects\n([\s\S]*?)\n\n\*\*/m.exec(readme)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cell = line.split('|')[1];
      let previous = '';
      const subjects = [...cell.matchAll(/`([^`]+)`/g)].map(([, written]) => (previous = written.startsWith('.') ? previous.replace(/\.[^.]+$/, written) : written));
      const patterns = subjects.map((subject) => new RegExp(`^${subject.replace(/\./g, '\\.').replace('<service>', '[a-z-]+').replace(/\*/g, '[^.]+')}$`));
      return { cell: cell.trim(), patterns };
    });
}

describe('README NATS subjects table', () => {
  const rows = readmeSubjectRows();

  it('lists every subject of libs/contracts', () => {
    expect(rows.length).toBeGreaterThan(5);
    const missing = SUBJECTS.filter((subject) => !rows.some((row) => row.patterns.some((pattern) => pattern.test(subject))));
    expect(missing).toEqual([]);
  });

  it('lists no subject libs/contracts does not have', () => {
    const stale = rows.flatMap((row) => row.patterns.filter((pattern) => !SUBJECTS.some((subject) => pattern.test(subject))).map(String));
    expect(stale).toEqual([]);
  });
});
