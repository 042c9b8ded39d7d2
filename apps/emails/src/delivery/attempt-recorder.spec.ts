import { AttemptRecorder } from './attempt-recorder';
import type { AttemptRecord, AttemptsRepository, RecordedOutcomes } from './attempts.repository';
import type { ClaimedEmail } from './delivery.repository';

function attempt(id: string): AttemptRecord {
  return { email: { id } as ClaimedEmail, updates: [], suppressions: [], events: [], summarize: () => ({ status: 'sent', nextAttemptAt: null, delivered: false }) };
}

/** Every record written, each with its one recipient's outcome applied. */
function recordedAll(records: AttemptRecord[]): RecordedOutcomes {
  return new Map(records.map((record) => [record.email.id, new Set(['bob@example.test'])]));
}

/** A repository that answers after `release()`, so a test can pile attempts up behind a write in progress. */
function setup(recordAttempts: (owner: string, records: AttemptRecord[]) => Promise<RecordedOutcomes>) {
  const repository = { recordAttempts: jest.fn(recordAttempts) };
  return { repository, recorder: new AttemptRecorder(repository as unknown as AttemptsRepository) };
}

describe(AttemptRecorder.name, () => {
  it('writes an attempt at once when nothing is being written, and the ones that finish meanwhile in one batch after it', async () => {
    let release!: () => void;
    const firstWrite = new Promise<void>((resolve) => (release = resolve));
    const { repository, recorder } = setup(async (_owner, records) => {
      if (repository.recordAttempts.mock.calls.length === 1) await firstWrite;
      return recordedAll(records);
    });
    const first = recorder.record('w1', attempt('email_1'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(repository.recordAttempts).toHaveBeenCalledTimes(1);
    const later = ['email_2', 'email_3', 'email_4'].map((id) => recorder.record('w1', attempt(id)));
    release();
    await expect(Promise.all([first, ...later])).resolves.toEqual([1, 2, 3, 4].map(() => new Set(['bob@example.test'])));
    expect(repository.recordAttempts.mock.calls.map(([, records]) => records.map((record) => record.email.id))).toEqual([['email_1'], ['email_2', 'email_3', 'email_4']]);
  });

  it('answers null for an email another worker took over, and each written email its recipients whose outcome was applied', async () => {
    const { recorder } = setup(async () => new Map([['email_1', new Set(['bob@example.test'])]]));
    await expect(Promise.all([recorder.record('w1', attempt('email_1')), recorder.record('w1', attempt('email_2'))])).resolves.toEqual([new Set(['bob@example.test']), null]);
  });

  it('writes a failed batch again one attempt at a time, so one bad row fails only its own email', async () => {
    const { recorder } = setup(async (_owner, records) => {
      if (records.some((record) => record.email.id === 'email_bad')) throw new Error('invalid byte sequence');
      return recordedAll(records);
    });
    const results = await Promise.allSettled(['email_1', 'email_bad', 'email_3'].map((id) => recorder.record('w1', attempt(id))));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('fails a batch at once, not one attempt at a time, when the database is unavailable', async () => {
    // Each lone write would wait for the database again (up to DATABASE_ACQUIRE_TIMEOUT_MS), holding every later attempt behind it.
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { repository, recorder } = setup(async () => {
      throw refused;
    });
    const results = await Promise.allSettled(['email_1', 'email_2', 'email_3'].map((id) => recorder.record('w1', attempt(id))));
    expect(results).toEqual([1, 2, 3].map(() => ({ status: 'rejected', reason: refused })));
    expect(repository.recordAttempts).toHaveBeenCalledTimes(1);
  });
});
