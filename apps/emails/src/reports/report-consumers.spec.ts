import { Logger } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import type { EventEnvelope } from '@mailroom/contracts';
import { BounceConsumer } from '../bounces/bounce-consumer';
import type { BouncesRepository } from '../bounces/bounces.repository';
import { ComplaintConsumer } from '../complaints/complaint-consumer';
import type { ComplaintsRepository } from '../complaints/complaints.repository';

const event = (type: string, data: Record<string, unknown>): EventEnvelope => ({ id: 'evt_1', type, createdAt: '2026-11-27T10:00:00.000Z', mode: 'live', data });

/** A report whose emailId is no string still suppresses its address, and the log says why no email was marked. */
describe('the report consumers and an emailId of another type', () => {
  let warnings: jest.SpyInstance;
  beforeEach(() => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warnings.mockRestore());

  const loggedProblems = () => warnings.mock.calls.map(([fields]) => (fields as { problem?: string }).problem);

  it.each([42, ['email_01JD7X2Q9Y5T4V2W8K6M0N1P2R'], { id: 'email_1' }])('applies a bounce naming %j to the suppression list alone, and logs why', async (emailId) => {
    const bounces = { apply: jest.fn().mockResolvedValue(undefined) };
    await new BounceConsumer(bounces as unknown as BouncesRepository, {} as MailroomConfig).apply(event('email.bounced', { recipient: 'gone@example.com', emailId }));
    expect(bounces.apply).toHaveBeenCalledWith('evt_1', 'live', expect.objectContaining({ address: 'gone@example.com', emailId: null, suppress: true }));
    expect(loggedProblems()).toEqual(['emailId: must be a string; the report was applied to the suppression list alone']);
  });

  it.each([42, ['email_01JD7X2Q9Y5T4V2W8K6M0N1P2R']])('applies a complaint naming %j to the suppression list alone, and logs why', async (emailId) => {
    const complaints = { apply: jest.fn().mockResolvedValue(undefined) };
    await new ComplaintConsumer(complaints as unknown as ComplaintsRepository, {} as MailroomConfig).apply(event('email.complained', { recipient: 'reader@example.com', emailId }));
    expect(complaints.apply).toHaveBeenCalledWith('evt_1', 'live', null, 'reader@example.com', 'complaint reported');
    expect(loggedProblems()).toEqual(['emailId: must be a string; the report was applied to the suppression list alone']);
  });

  it('logs nothing for an emailId left out or null', async () => {
    const bounces = { apply: jest.fn().mockResolvedValue(undefined) };
    const complaints = { apply: jest.fn().mockResolvedValue(undefined) };
    for (const data of [{ recipient: 'a@example.com' }, { recipient: 'a@example.com', emailId: null }, { recipient: 'a@example.com', emailId: 'email_1' }]) {
      await new BounceConsumer(bounces as unknown as BouncesRepository, {} as MailroomConfig).apply(event('email.bounced', data));
      await new ComplaintConsumer(complaints as unknown as ComplaintsRepository, {} as MailroomConfig).apply(event('email.complained', data));
    }
    expect(warnings).not.toHaveBeenCalled();
    expect([bounces.apply.mock.calls.length, complaints.apply.mock.calls.length]).toEqual([3, 3]);
  });
});
