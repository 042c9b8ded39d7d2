import { randomBytes } from 'node:crypto';
import { SecretBox } from '@mailroom/auth';
import type { ResealOutcome } from '@mailroom/database';
import { secretsSealedWithPreviousKey } from './metrics';
import { RESEAL_EVERY_MS, SecretResealer } from './secret-resealer';

const key = () => randomBytes(32).toString('base64');
const gaugeValue = async () => (await secretsSealedWithPreviousKey.get()).values.find((sample) => sample.labels.kind === 'dkim_key')?.value;

describe(SecretResealer.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function resealer(box: SecretBox, outcomes: ResealOutcome[]) {
    const passes: number[] = [];
    const logged: string[] = [];
    const instance = new SecretResealer({
      kind: 'dkim_key',
      what: 'DKIM private keys',
      box,
      reseal: async () => {
        passes.push(Date.now());
        return outcomes.shift() ?? { resealed: 0, remaining: 0, unreadable: 0 };
      },
    });
    for (const level of ['log', 'warn'] as const) jest.spyOn(instance['logger'], level).mockImplementation((...args: unknown[]) => void logged.push(String(args.at(-1))));
    return { instance, passes, logged };
  }

  it('passes at boot and every interval while previous keys are set; the gauge is absent until the first pass, then what it left', async () => {
    const { instance, passes, logged } = resealer(new SecretBox(key(), [key()]), [
      { resealed: 3, remaining: 1, unreadable: 0 },
      { resealed: 1, remaining: 0, unreadable: 0 },
    ]);
    secretsSealedWithPreviousKey.set({ kind: 'dkim_key' }, 0);
    instance.onApplicationBootstrap();
    expect(await gaugeValue()).toBeUndefined();
    await jest.advanceTimersByTimeAsync(0);
    expect(passes).toHaveLength(1);
    expect(await gaugeValue()).toBe(1);
    expect(logged).toEqual([expect.stringMatching(/^sealed 3 DKIM private keys again under ENCRYPTION_KEY id [0-9a-f]{8}; 1 still under a previous key$/)]);

    await jest.advanceTimersByTimeAsync(RESEAL_EVERY_MS);
    expect(passes).toHaveLength(2);
    expect(await gaugeValue()).toBe(0);
    expect(logged.at(-1)).toMatch(/^all DKIM private keys are sealed under ENCRYPTION_KEY id [0-9a-f]{8}: this service no longer needs ENCRYPTION_KEY_PREVIOUS/);

    // Said once: a later pass that finds nothing logs nothing.
    const lines = logged.length;
    await jest.advanceTimersByTimeAsync(RESEAL_EVERY_MS);
    expect(passes).toHaveLength(3);
    expect(logged).toHaveLength(lines);
    await instance.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(RESEAL_EVERY_MS * 3);
    expect(passes).toHaveLength(3);
  });

  it('warns about secrets no key opens', async () => {
    const { instance, logged } = resealer(new SecretBox(key(), [key()]), [{ resealed: 0, remaining: 0, unreadable: 2 }]);
    instance.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(0);
    expect(logged.at(-1)).toMatch(/^2 DKIM private keys open with no key this service holds/);
    await instance.onApplicationShutdown();
  });

  it('never passes without previous keys, and says 0', async () => {
    const { instance, passes } = resealer(new SecretBox(key()), []);
    instance.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(RESEAL_EVERY_MS * 2);
    expect(passes).toEqual([]);
    expect(await gaugeValue()).toBe(0);
    await instance.onApplicationShutdown();
  });
});
