import type { JsMsg } from 'nats';
import { HeldMessages } from './held-messages';

describe(HeldMessages.name, () => {
  let held: HeldMessages;
  const message = () => ({ working: jest.fn() }) as unknown as JsMsg & { working: jest.Mock };

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    held.close();
    jest.useRealTimers();
  });

  it('marks a held message in progress every third of AckWait until it is released', () => {
    held = new HeldMessages(30_000);
    const first = message();
    const second = message();
    held.hold(first);
    held.hold(second);
    jest.advanceTimersByTime(30_000);
    expect([first.working.mock.calls.length, second.working.mock.calls.length]).toEqual([3, 3]);

    held.release(first);
    jest.advanceTimersByTime(30_000);
    expect([first.working.mock.calls.length, second.working.mock.calls.length]).toEqual([3, 6]);
  });

  it('stops marking a message held longer than the limit, so JetStream can give it to another replica', () => {
    held = new HeldMessages(30_000, 60_000);
    const stuck = message();
    held.hold(stuck);
    jest.advanceTimersByTime(120_000);
    expect(stuck.working).toHaveBeenCalledTimes(6);
  });

  it('survives a message whose connection is gone', () => {
    held = new HeldMessages(3000);
    const gone = message();
    gone.working.mockImplementation(() => {
      throw new Error('connection closed');
    });
    const next = message();
    held.hold(gone);
    held.hold(next);
    jest.advanceTimersByTime(1000);
    expect(next.working).toHaveBeenCalledTimes(1);
  });
});
