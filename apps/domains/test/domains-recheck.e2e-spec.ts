import { Pool } from 'pg';
import { eventually } from '@mailroom/testing';
import { DomainEventsRecorder } from './domain-events-recorder';
import { DomainsHarness, publish, startDomainsHarness, stopDomainsHarness, uniqueDomain } from './domains-fixtures';

/** The schedule, compressed: hours become milliseconds. */
// Long enough for a few conclusive checks on a loaded machine: a check whose DNS times out (DNS_TIMEOUT_MS) is
// inconclusive and not counted: at 3 s a run under heavy CPU contention saw none before the domain failed, and
// at 5 s so did a run on a machine three times slower with four other test runs beside it.
const PENDING_TIMEOUT_MS = 8000;
// Long enough that a test can put a removed record back before the confirmation ends, on a loaded machine too.
const FAILURE_CONFIRMATION_MS = 4000;
const SCHEDULE = {
  DOMAIN_RECHECK_SCHEDULE: '200ms',
  DOMAIN_PENDING_TIMEOUT: `${PENDING_TIMEOUT_MS}ms`,
  DOMAIN_VERIFIED_RECHECK_INTERVAL: '300ms',
  DOMAIN_FAILURE_CONFIRMATION: `${FAILURE_CONFIRMATION_MS}ms`,
  // Long enough for a deliberately slow answer (SLOW_ANSWER_MS) to still count as an answer.
  DNS_TIMEOUT_MS: '1000',
};
const SLOW_ANSWER_MS = 600;

interface CheckRow {
  status: string;
  check_attempts: number;
  pending_since: Date;
  failed_at: Date | null;
  records_missing_since: Date | null;
  next_check_at: Date | null;
  last_checked_at: Date | null;
}

let harness: DomainsHarness;
/** A pool, not one client: the tests below run concurrently, and one client would queue their queries (pg deprecates that). */
let db: Pool;
let events: DomainEventsRecorder;
// At the top level, not in the describe: Jest starts concurrent tests right after the top level's beforeAll.
beforeAll(async () => {
  harness = await startDomainsHarness(SCHEDULE);
  db = new Pool({ connectionString: harness.stack.databaseUrl, max: 4 });
  events = await DomainEventsRecorder.start(harness.stack.nats.url);
}, 60000);
afterAll(async () => {
  await events?.stop();
  await db?.end();
  await stopDomainsHarness(harness);
});

/**
 * Each test has a domain of its own, with DNS records of its own, and reads only that domain's rows and events
 * (settledTypes waits until every event of every domain is published and received). Those that mostly wait out
 * the schedule (DOMAIN_PENDING_TIMEOUT, DOMAIN_FAILURE_CONFIRMATION) run concurrently, beside the others: one
 * after the other they took about 40 s. The others run one at a time, as they are written: the SERVFAIL and
 * slow-answer ones hold a background batch up to DNS_TIMEOUT_MS, and the blip test must put its record back
 * within DOMAIN_FAILURE_CONFIRMATION.
 */
describe('domains: background re-checks on a compressed schedule', () => {

  const api = () => harness.stack.api;
  const addDomain = async (prefix: string) => {
    const response = await api().post('/v1/domains', { name: uniqueDomain(prefix) });
    expect(response.status).toBe(201);
    return response.body;
  };
  const get = async (id: string) => (await api().get(`/v1/domains/${id}`)).body;
  const statusReaching = (id: string, status: string, timeoutMs = 10000) =>
    eventually(async () => {
      const domain = await get(id);
      return domain.status === status ? domain : undefined;
    }, timeoutMs);
  const checkRow = async (id: string): Promise<CheckRow> =>
    (
      await db.query(`SELECT status, check_attempts, pending_since, failed_at, records_missing_since, next_check_at, last_checked_at FROM domains.domains WHERE id = $1`, [id])
    ).rows[0];
  /** Waits for `times` more background checks of the domain to complete (each stamps last_checked_at). */
  const backgroundChecks = async (id: string, times: number) => {
    for (let i = 0; i < times; i++) {
      const before = (await checkRow(id)).last_checked_at?.getTime() ?? 0;
      await eventually(async () => ((await checkRow(id)).last_checked_at?.getTime() ?? 0) > before);
    }
  };
  const verifiedByRequest = async (prefix: string) => {
    const domain = await addDomain(prefix);
    publish(harness.dns, domain.name, domain.dnsRecords);
    const verified = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(verified.body.status).toBe('verified');
    return { ...domain, verifiedAt: verified.body.verifiedAt as string };
  };
  /** Every domain event on the stream, once nothing is left to publish or deliver. */
  const settledTypes = async (id: string) => {
    await events.settled(db);
    return events.typesFor(id);
  };

  it.concurrent('verifies a pending domain in the background once its records appear, with no verify call', async () => {
    const domain = await addDomain('later');
    // Checked in the background with nothing published: still pending, the backoff counting.
    await eventually(async () => (await checkRow(domain.id)).check_attempts >= 1);
    expect(await get(domain.id)).toMatchObject({ status: 'pending', spfStatus: 'pending', dkimStatus: 'pending', dmarcStatus: 'pending' });

    publish(harness.dns, domain.name, domain.dnsRecords);
    const verified = await statusReaching(domain.id, 'verified');
    expect(verified).toMatchObject({ spfStatus: 'verified', dkimStatus: 'verified', dmarcStatus: 'verified' });
    expect(Date.parse(verified.verifiedAt)).not.toBeNaN();

    // Periodic re-checks of a verified domain whose records stay put change nothing and emit nothing.
    await backgroundChecks(domain.id, 2);
    expect((await get(domain.id)).verifiedAt).toBe(verified.verifiedAt);
    expect(await settledTypes(domain.id)).toEqual(['domain.verified']);
    const [event] = events.received.filter((received) => received.data.id === domain.id);
    expect(event).toMatchObject({ type: 'domain.verified', mode: 'live', data: { id: domain.id, name: domain.name, status: 'verified', verifiedAt: verified.verifiedAt } });
  });

  it.concurrent('fails a pending domain whose records never appear once DOMAIN_PENDING_TIMEOUT has passed', async () => {
    const domain = await addDomain('never');
    const failed = await statusReaching(domain.id, 'failed', 25000);
    expect(failed).toMatchObject({ spfStatus: 'pending', dkimStatus: 'pending', dmarcStatus: 'pending' });
    expect(failed.verifiedAt).toBeUndefined();

    const row = await checkRow(domain.id);
    expect(row.failed_at!.getTime() - row.pending_since.getTime()).toBeGreaterThanOrEqual(PENDING_TIMEOUT_MS);
    // It was checked with backoff before giving up, and a failed domain is no longer scheduled.
    expect(row.check_attempts).toBeGreaterThanOrEqual(2);
    expect(row.next_check_at).toBeNull();

    expect(await settledTypes(domain.id)).toEqual(['domain.failed']);
    const [event] = events.received.filter((received) => received.data.id === domain.id);
    expect(event.data).toMatchObject({ id: domain.id, status: 'failed', missingRecords: domain.dnsRecords });
  });

  it('keeps a verified domain verified when a check finds a record missing, and emits nothing when it comes back', async () => {
    const domain = await verifiedByRequest('blip');
    harness.dns.clear(`_dmarc.${domain.name}`);
    // A background check saw it missing: the sub-status says so, the domain still sends.
    const seen = await eventually(async () => {
      const current = await get(domain.id);
      return current.dmarcStatus === 'pending' ? current : undefined;
    });
    expect(seen).toMatchObject({ status: 'verified', spfStatus: 'verified', dkimStatus: 'verified', verifiedAt: domain.verifiedAt });
    const confirming = await checkRow(domain.id);
    expect(confirming.records_missing_since).not.toBeNull();
    // Re-checked at the first DOMAIN_RECHECK_SCHEDULE step, not after DOMAIN_VERIFIED_RECHECK_INTERVAL.
    expect(confirming.next_check_at!.getTime() - confirming.last_checked_at!.getTime()).toBeLessThanOrEqual(200);

    publish(harness.dns, domain.name, domain.dnsRecords);
    const back = await eventually(async () => {
      const current = await get(domain.id);
      return current.dmarcStatus === 'verified' ? current : undefined;
    });
    expect(back).toMatchObject({ status: 'verified', verifiedAt: domain.verifiedAt });
    expect((await checkRow(domain.id)).records_missing_since).toBeNull();
    expect(await settledTypes(domain.id)).toEqual(['domain.verified']);
  });

  it.concurrent('fails a verified domain whose records stay missing through DOMAIN_FAILURE_CONFIRMATION, and verifies it again in the background once they return', async () => {
    const domain = await verifiedByRequest('removed');
    await backgroundChecks(domain.id, 1);
    expect((await get(domain.id)).status).toBe('verified');

    harness.dns.clear(`_dmarc.${domain.name}`);
    const failed = await statusReaching(domain.id, 'failed', FAILURE_CONFIRMATION_MS + 10000);
    expect(failed).toMatchObject({ spfStatus: 'verified', dkimStatus: 'verified', dmarcStatus: 'pending' });
    expect(failed.verifiedAt).toBeUndefined();
    const row = await checkRow(domain.id);
    expect(row.failed_at!.getTime() - row.records_missing_since!.getTime()).toBeGreaterThanOrEqual(FAILURE_CONFIRMATION_MS);
    // A domain that was verified is still checked in the background, at the last DOMAIN_RECHECK_SCHEDULE step.
    expect(row.next_check_at).not.toBeNull();

    publish(harness.dns, domain.name, domain.dnsRecords);
    const back = await statusReaching(domain.id, 'verified');
    expect(back).toMatchObject({ dmarcStatus: 'verified' });
    expect(Date.parse(back.verifiedAt)).toBeGreaterThan(Date.parse(domain.verifiedAt));

    // Back on the periodic schedule, and every transition was published exactly once.
    await backgroundChecks(domain.id, 2);
    expect((await get(domain.id)).status).toBe('verified');
    expect(await settledTypes(domain.id)).toEqual(['domain.verified', 'domain.failed', 'domain.verified']);
    const failedEvent = events.received.find((event) => event.data.id === domain.id && event.type === 'domain.failed')!;
    expect(failedEvent.data).toMatchObject({ status: 'failed', dmarcStatus: 'pending', missingRecords: [domain.dnsRecords[2]] });
  });

  it.concurrent('stops checking a failed domain in the background DOMAIN_PENDING_TIMEOUT after it failed', async () => {
    const domain = await verifiedByRequest('gone');
    harness.dns.clear(domain.name);
    await statusReaching(domain.id, 'failed', FAILURE_CONFIRMATION_MS + 10000);
    const stopped = await eventually(async () => {
      const row = await checkRow(domain.id);
      return row.next_check_at === null ? row : undefined;
    }, PENDING_TIMEOUT_MS + 15000);
    expect(stopped.status).toBe('failed');
    // The last check fell on the end of the period.
    expect(stopped.last_checked_at!.getTime() - stopped.failed_at!.getTime()).toBeGreaterThanOrEqual(PENDING_TIMEOUT_MS);
    expect(await settledTypes(domain.id)).toEqual(['domain.verified', 'domain.failed']);
  });

  it('keeps a verified domain verified through background checks that hit SERVFAIL or a DNS timeout', async () => {
    const domain = await verifiedByRequest('dnsfail');
    const queriesBefore = harness.dns.queries.length;

    harness.dns.servfail(domain.name);
    // A check already in flight may have asked before SERVFAIL was set and complete first, so count the questions
    // asked since, not completions: two checks asked and got SERVFAIL, then one more check completed. Only the SPF
    // record's TXT questions count: after a failed one, a check also asks for the name's CNAME (a loop behind it?).
    const askedSinceServfail = () => harness.dns.queries.slice(queriesBefore).filter((query) => query.name === domain.name && query.type === 'TXT').length;
    await eventually(() => askedSinceServfail() >= 2);
    await backgroundChecks(domain.id, 1);
    expect(await get(domain.id)).toMatchObject({ status: 'verified', spfStatus: 'verified', verifiedAt: domain.verifiedAt });

    // clear() drops the name's records along with the failure: publish them again, then time out another one.
    harness.dns.clear(domain.name);
    publish(harness.dns, domain.name, domain.dnsRecords);
    harness.dns.delay(`_dmarc.${domain.name}`, Infinity);
    await backgroundChecks(domain.id, 2);
    expect(await get(domain.id)).toMatchObject({ status: 'verified', dmarcStatus: 'verified', verifiedAt: domain.verifiedAt });

    expect(await settledTypes(domain.id)).toEqual(['domain.verified']);
  });

  it.concurrent('keeps a pending domain pending past its timeout while DNS fails, and fails it once DNS answers again', async () => {
    const domain = await addDomain('dnsdown');
    harness.dns.servfail(domain.name);
    // A background check completed after the pending period ended, and could not tell.
    await eventually(async () => {
      const row = await checkRow(domain.id);
      return row.last_checked_at !== null && row.last_checked_at.getTime() >= row.pending_since.getTime() + PENDING_TIMEOUT_MS;
    }, 25000);
    expect(await get(domain.id)).toMatchObject({ status: 'pending', spfStatus: 'pending' });
    expect(await settledTypes(domain.id)).toEqual([]);

    // DNS answers again and the records are still missing: the overdue domain fails at the next check.
    harness.dns.clear(domain.name);
    await statusReaching(domain.id, 'failed');
    expect(await settledTypes(domain.id)).toEqual(['domain.failed']);
  });

  it('does not let a background check that started before a verify undo it with older answers', async () => {
    const domain = await addDomain('stale');
    const dmarcHost = `_dmarc.${domain.name}`;
    harness.dns.delay(dmarcHost, SLOW_ANSWER_MS);
    // A background check is in flight: SPF and DKIM already answered "missing", DMARC still on its way.
    const queriesBefore = harness.dns.queries.length;
    await eventually(() => harness.dns.queries.slice(queriesBefore).some((query) => query.name === dmarcHost));
    const slowAnswerDue = Date.now() + SLOW_ANSWER_MS;

    harness.dns.clear(dmarcHost);
    publish(harness.dns, domain.name, domain.dnsRecords);
    const verified = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(verified.body.status).toBe('verified');

    // Wait until a check completed after the slow answer was due (or the domain failed: a failed domain is not checked again), then one more.
    await eventually(async () => {
      const row = await checkRow(domain.id);
      return row.status === 'failed' || (row.last_checked_at?.getTime() ?? 0) > slowAnswerDue;
    });
    if ((await checkRow(domain.id)).status !== 'failed') await backgroundChecks(domain.id, 1);
    expect(await get(domain.id)).toMatchObject({ status: 'verified', spfStatus: 'verified', dkimStatus: 'verified', verifiedAt: verified.body.verifiedAt });
    expect(await settledTypes(domain.id)).toEqual(['domain.verified']);
  });
});
