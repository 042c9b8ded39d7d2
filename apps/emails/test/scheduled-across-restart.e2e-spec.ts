import { AppProcess, eventually, PROCESS_READY_TIMEOUT_MS } from '@mailroom/testing';
import { DeliveryHarness, startDeliveryHarnessBesideEmailsProcess, startEmailsProcess, untilEmailsProcessReady } from './support/delivery-harness';

/**
 * Scheduled emails come due while the emails process is dead (SIGKILL, no
 * shutdown of its own), or it dies while it dispatches them. Once it runs
 * again every one of them goes out: none lost, none left scheduled or
 * queued, and none twice unless it was on the wire when the process died
 * (then with the same Message-ID).
 */
describe('scheduled emails across a crash of the emails process', () => {
  let harness: DeliveryHarness;
  let emails: AppProcess | undefined;
  let opsPort: number;

  const startEmails = async () => {
    emails = startEmailsProcess(harness, opsPort, { DELIVERY_LEASE_MS: '2000', DELIVERY_RETRY_SCHEDULE: '500ms,500ms,500ms' });
    await untilEmailsProcessReady(opsPort);
  };
  const kill = async () => {
    const running = emails!;
    running.child.kill('SIGKILL');
    await running.exited;
  };
  /** A batch of `count` emails to distinct addresses, all due at `dueAt`; answers their ids and addresses. */
  const scheduleAt = async (label: string, count: number, dueAt: number) => {
    const to = Array.from({ length: count }, (_, i) => `${label}${i}@example.test`);
    const batch = await harness.stack.api.post(
      '/v1/emails/batch',
      to.map((address) => ({ from: 'hi@acme.test', to: address, subject: label, text: 'x', scheduledAt: new Date(dueAt).toISOString() })),
    );
    expect(batch.status).toBe(202);
    return { ids: batch.body.data.map((email: { id: string }) => email.id) as string[], to };
  };
  /**
   * Such a batch due a moment from now, and when: twice what a batch of that size just took (one due tomorrow, which
   * nothing here sends), and at least 1.5 s. A fixed 1.5 s assumed the batch is accepted, and the process killed,
   * sooner: on a loaded machine the time could be past when the batch arrived (422) or the emails come due, and be
   * claimed, before the kill.
   */
  const schedule = async (label: string, count: number) => {
    const started = Date.now();
    await scheduleAt(`${label}-tomorrow`, count, started + 86_400_000);
    const dueAt = Date.now() + Math.max(1500, 2 * (Date.now() - started));
    return { ...(await scheduleAt(label, count, dueAt)), dueAt };
  };
  const statuses = async (ids: string[]) => (await harness.db.query<{ status: string }>('SELECT status FROM emails.emails WHERE id = ANY($1)', [ids])).rows.map((row) => row.status);
  /** How many copies of each email reached its recipient, once every one is delivered; and that each copy carries the email's Message-ID. */
  const copiesOnceDelivered = async (ids: string[], to: string[]) => {
    await eventually(async () => (await statuses(ids)).every((status) => status === 'delivered'), 20000);
    return to.map((address, i) => {
      const copies = harness.smtp.messagesFor(address);
      for (const copy of copies) expect(copy.raw.toString()).toContain(`Message-ID: <${ids[i]}@acme.test>`);
      return copies.length;
    });
  };

  beforeAll(async () => {
    await startDeliveryHarnessBesideEmailsProcess(async (started, port) => {
      harness = started;
      opsPort = port;
      await startEmails();
    });
  }, 240000);

  afterAll(async () => {
    emails?.child.kill('SIGKILL');
    await harness?.stop();
  });

  it('sends each email that came due while the process was dead exactly once after the restart', async () => {
    const { ids, to, dueAt } = await schedule('due-while-dead', 20);
    await kill();
    // Due now, and nobody has touched them.
    await eventually(async () => {
      const { rows } = await harness.db.query(`SELECT 1 FROM emails.emails WHERE id = ANY($1) AND status = 'scheduled' AND next_attempt_at <= now() AND lease_owner IS NULL`, [ids]);
      return rows.length === ids.length;
    }, Math.max(0, dueAt - Date.now()) + 5000);
    await startEmails();
    expect(await copiesOnceDelivered(ids, to)).toEqual(Array(ids.length).fill(1));
    const { rows } = await harness.db.query(`SELECT type, count(*)::int AS n FROM emails.outbox WHERE data->>'emailId' = ANY($1) GROUP BY type ORDER BY type`, [ids]);
    expect(rows).toEqual([
      { type: 'email.delivered', n: ids.length },
      { type: 'email.queued', n: ids.length },
      { type: 'email.scheduled', n: ids.length },
    ]);
  }, PROCESS_READY_TIMEOUT_MS + 60_000);

  it('sends every email when the process dies while dispatching them at their time: once, or twice with one Message-ID only if it was being sent', async () => {
    // The first message's DATA reply is held: the process dies with that one on the wire, the rest being claimed and sent.
    const held = harness.smtp.holdNextData();
    const { ids, to } = await schedule('dies-dispatching', 40);
    await held.arrived;
    await kill();
    held.release();
    const atCrash = await statuses(ids);
    expect(atCrash).toContain('queued');
    await startEmails();
    const copies = await copiesOnceDelivered(ids, to);
    // A copy twice only for an email on the wire at the crash; the rest exactly once.
    for (const count of copies) expect([1, 2]).toContain(count);
    expect(copies.filter((count) => count === 2).length).toBeLessThanOrEqual(atCrash.filter((status) => status === 'queued').length);
  }, PROCESS_READY_TIMEOUT_MS + 60_000);
});
