import { EVENT_STREAM } from '@mailroom/contracts';
import { ApiClient, eventually, startStack, Stack } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import { emailBody, inOneDay, queryDatabase } from './emails-api-fixtures';

/**
 * Recipients already on the suppression list when their email is accepted,
 * beside others who are not: each gets an email.suppressed of its own, as a
 * recipient suppressed at delivery does, read here off the real event stream.
 */
describe('an email accepted with some recipients suppressed', () => {
  let stack: Stack;
  let test: ApiClient;
  let connection: NatsConnection;

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
    connection = await connect({ servers: stack.nats.url });
    for (const email of ['gone-1@example.com', 'gone-2@example.com', 'gone-3@example.com']) expect((await test.post('/v1/suppressions', { email })).status).toBe(201);
  });
  afterAll(async () => {
    await connection?.close();
    await stack?.stop();
  });

  /** The email.suppressed events on the stream for these emails, as [emailId, recipient] pairs. */
  async function suppressedOnStream(emailIds: string[]): Promise<Array<[string, string]>> {
    const manager = await connection.jetstreamManager();
    const { state } = await manager.streams.info(EVENT_STREAM);
    const found: Array<[string, string]> = [];
    for (let seq = state.first_seq; state.messages && seq <= state.last_seq; seq++) {
      const message = await manager.streams.getMessage(EVENT_STREAM, { seq });
      if (message.subject !== 'email.suppressed') continue;
      const { data } = JSON.parse(message.string());
      if (emailIds.includes(data.emailId)) found.push([data.emailId, data.recipient]);
    }
    return found.sort();
  }

  /**
   * Outbox events of an email written at acceptance, committed with it: the answer of the send came after the
   * commit. Its delivery (test mode, at once) adds email.delivered beside them, whenever the worker gets to it.
   */
  const outboxTypes = async (emailId: string) =>
    (
      await queryDatabase<{ type: string }>(
        stack.databaseUrl,
        `SELECT type FROM emails.outbox WHERE data->>'emailId' = $1 AND type IN ('email.queued', 'email.scheduled', 'email.suppressed') ORDER BY seq`,
        [emailId],
      )
    ).map((row) => row.type);

  it('publishes one email.suppressed per suppressed recipient of a single send, and keeps suppressedRecipients on email.queued', async () => {
    const response = await test.post('/v1/emails', emailBody({ to: ['gone-1@example.com', 'here@example.com'], cc: 'Gone-2@Example.com' }));
    expect(response.status).toBe(202);
    const id = response.body.id;
    expect(await outboxTypes(id)).toEqual(['email.queued', 'email.suppressed', 'email.suppressed']);
    const [queued] = await queryDatabase<{ data: { suppressedRecipients: string[] } }>(
      stack.databaseUrl,
      `SELECT data FROM emails.outbox WHERE data->>'emailId' = $1 AND type = 'email.queued'`,
      [id],
    );
    // Each named as written (its local part's case kept), though the suppression matched it in any case.
    expect(queued.data.suppressedRecipients).toEqual(['gone-1@example.com', 'Gone-2@example.com']);

    const expected: Array<[string, string]> = [
      [id, 'Gone-2@example.com'],
      [id, 'gone-1@example.com'],
    ];
    let seen: Array<[string, string]> = [];
    await eventually(async () => (seen = await suppressedOnStream([id])).length >= expected.length, 15000).catch(() => undefined);
    expect(seen).toEqual(expected);
  });

  it('publishes one email.suppressed per suppressed recipient of each email of a batch, a scheduled one included', async () => {
    const response = await test.post('/v1/emails/batch', [
      emailBody({ to: ['gone-1@example.com', 'reader-1@example.com'] }),
      emailBody({ to: ['reader-2@example.com'], bcc: ['gone-2@example.com', 'gone-3@example.com'], scheduledAt: inOneDay() }),
      emailBody({ to: ['reader-3@example.com'] }),
    ]);
    expect(response.status).toBe(202);
    const ids: string[] = response.body.data.map((email: { id: string }) => email.id);
    expect(await outboxTypes(ids[1])).toEqual(['email.scheduled', 'email.suppressed', 'email.suppressed']);
    expect(await outboxTypes(ids[2])).toEqual(['email.queued']);

    const expected = (
      [
        [ids[0], 'gone-1@example.com'],
        [ids[1], 'gone-2@example.com'],
        [ids[1], 'gone-3@example.com'],
      ] as Array<[string, string]>
    ).sort();
    let seen: Array<[string, string]> = [];
    await eventually(async () => (seen = await suppressedOnStream(ids)).length >= expected.length, 15000).catch(() => undefined);
    expect(seen).toEqual(expected);
  });
});
