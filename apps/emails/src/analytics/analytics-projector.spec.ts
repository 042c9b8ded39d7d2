import type { MailroomConfig } from '@mailroom/config';
import type { EventEnvelope } from '@mailroom/contracts';
import { NotYetError } from '@mailroom/outbox';
import { AnalyticsProjector } from './analytics-projector';
import { CounterIncrement, CountersRepository } from './counters.repository';

const delivered = (id: string): EventEnvelope => ({ id, type: 'email.delivered', createdAt: '2026-11-22T08:15:00.000Z', mode: 'live', data: { from: 'a@acme.test', tags: ['t', 7] } });

describe(AnalyticsProjector.name, () => {
  it('counts the good events of a batch the database refused because of one bad event', async () => {
    const applied: CounterIncrement[] = [];
    // Stands in for a row Postgres refuses: any batch holding the bad event fails as a whole.
    const counters = {
      applyMany: jest.fn(async (increments: CounterIncrement[]) => {
        if (increments.some((increment) => increment.eventId === 'evt_bad')) throw new Error('refused by the database');
        applied.push(...increments);
        return increments.map(() => true);
      }),
    } as unknown as CountersRepository;
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);

    const results = await Promise.allSettled(['evt_1', 'evt_bad', 'evt_2'].map((id) => projector.apply(delivered(id))));

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(applied.map((increment) => increment.eventId).sort()).toEqual(['evt_1', 'evt_2']);
    // The first try was one batch of all three; only its retries went one by one.
    expect((counters.applyMany as jest.Mock).mock.calls[0][0]).toHaveLength(3);
    expect(applied[0].tags).toEqual(['t']);
  });

  it('hands back a complaint whose recipient waits on an attempt as an expected wait (NotYetError), and a database failure as a failure', async () => {
    const complaint: EventEnvelope = { id: 'evt_c', type: 'email.complained', createdAt: '2026-11-22T08:15:00.000Z', mode: 'live', data: { emailId: 'email_1', recipient: 'reader@example.com' } };
    const waiting = { domain: 'acme.test', tags: [], emailStatus: 'queued', recipientStatus: 'queued', attemptInFlight: true, recipientMarked: false };
    const counters = { complainedEmailOf: jest.fn().mockResolvedValueOnce(waiting).mockRejectedValueOnce(new Error('connection terminated')) } as unknown as CountersRepository;
    const projector = new AnalyticsProjector(counters, {} as MailroomConfig);

    await expect(projector.apply(complaint)).rejects.toBeInstanceOf(NotYetError);
    const failure = await projector.apply(complaint).catch((error: Error) => error);
    expect(failure).toEqual(new Error('connection terminated'));
    expect(failure).not.toBeInstanceOf(NotYetError);
  });
});
