import { queryPlan } from '@mailroom/testing';
import { DELIVERIES_CLAIM, DispatchRepository } from '../src/dispatch/dispatch.repository';
import { startWebhooksDatabase, WebhooksDatabase } from './support/webhooks-database';

const NO_SLOW = { ids: [], room: 0 };
/** Of each event's payload: its JSON is a little over this. */
const FILLER_BYTES = 10_000;

/**
 * The claim query's byte room, against real Postgres: deliveries are claimed
 * in due order only while their payloads fit the room the dispatcher has
 * left, and one however large when it holds nothing, so none is stuck.
 */
describe('claiming deliveries within a byte room', () => {
  let database: WebhooksDatabase;
  let dispatch: DispatchRepository;

  const event = (id: string) => ({ id, type: 'test.large', mode: 'live' as const, createdAt: new Date().toISOString(), data: { filler: 'x'.repeat(FILLER_BYTES) } });

  beforeAll(async () => {
    database = await startWebhooksDatabase();
    dispatch = new DispatchRepository(database.dataSource);
  });

  afterAll(() => database?.stop());

  it('takes due deliveries while their payloads fit the room, and one alone when the room fits none but the dispatcher holds nothing', async () => {
    // Due one after the other, evt_1 first (the fixture's wh_1 subscribes to every event).
    const events = [1, 2, 3, 4, 5].map((n) => event(`evt_${n}`));
    for (const [index, item] of events.entries()) expect(await dispatch.fanOut([item], (index - 10) * 1000, 8)).toBe(1);
    const jsonBytes = Buffer.byteLength(JSON.stringify(events[0]));

    const first = await dispatch.claimDue('worker-1', 60_000, 10, 10, {}, NO_SLOW, { room: Math.floor(2.5 * jsonBytes), atLeastOne: false });
    expect(first.map((delivery) => delivery.eventId)).toEqual(['evt_1', 'evt_2']);
    // The payload as Postgres prints it: the JSON with a space after each separator.
    expect(first[0].payloadBytes).toBeGreaterThanOrEqual(jsonBytes);
    expect(first[0].payloadBytes).toBeLessThan(jsonBytes + 100);

    expect(await dispatch.claimDue('worker-1', 60_000, 10, 10, {}, NO_SLOW, { room: jsonBytes - 1, atLeastOne: false })).toEqual([]);
    const alone = await dispatch.claimDue('worker-1', 60_000, 10, 10, {}, NO_SLOW, { room: 0, atLeastOne: true });
    expect(alone.map((delivery) => delivery.eventId)).toEqual(['evt_3']);
    // The count still bounds the claim when the room is large.
    const counted = await dispatch.claimDue('worker-1', 60_000, 1, 10, {}, NO_SLOW, { room: 100 * jsonBytes, atLeastOne: false });
    expect(counted.map((delivery) => delivery.eventId)).toEqual(['evt_4']);
  });

  it('counts a delivery inserted before payload_bytes existed (NULL) by its computed size, in due order', async () => {
    // Due before every delivery of the test above; evt_old as a row the migration left without a size.
    expect(await dispatch.fanOut([event('evt_old')], -30_000, 8)).toBe(1);
    expect(await dispatch.fanOut([event('evt_new')], -29_000, 8)).toBe(1);
    await database.dataSource.query(`UPDATE webhooks.deliveries SET payload_bytes = NULL WHERE event_id = 'evt_old'`);
    const jsonBytes = Buffer.byteLength(JSON.stringify(event('evt_old')));
    const room = { room: Math.floor(1.5 * jsonBytes), atLeastOne: false };

    const old = await dispatch.claimDue('worker-1', 60_000, 10, 10, {}, NO_SLOW, room);
    expect(old.map((delivery) => delivery.eventId)).toEqual(['evt_old']);
    const sized = await dispatch.claimDue('worker-1', 60_000, 10, 10, {}, NO_SLOW, room);
    expect(sized.map((delivery) => delivery.eventId)).toEqual(['evt_new']);
    // The same size the trigger stores for a payload of the same length.
    expect(old[0].payloadBytes).toBe(sized[0].payloadBytes);
    expect(old[0].payloadBytes).toBeGreaterThanOrEqual(jsonBytes);
  });

  it('still walks deliveries_due_idx in due order, reading the stored payload size rather than each payload', async () => {
    expect(DELIVERIES_CLAIM).toContain('COALESCE(d.payload_bytes, octet_length(d.payload::text)) AS payload_bytes FROM webhooks.deliveries d');
    const plan = await queryPlan(
      database.dataSource,
      DELIVERIES_CLAIM,
      ['worker-1', 60_000, 128, 20, '{}', [], 32, 16 * 1024 * 1024, true],
      // As leaseQuery runs it.
      async (manager) => void (await manager.query('SET LOCAL enable_bitmapscan = off')),
    );
    expect(plan).toMatch(/Index Scan using deliveries_due_idx on deliveries/);
    expect(plan).not.toMatch(/Seq Scan on deliveries/);
  });
});
