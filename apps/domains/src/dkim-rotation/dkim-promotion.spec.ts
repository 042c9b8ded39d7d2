import type { EntityManager } from 'typeorm';
import { DkimKeyEntity } from '../database/entities/dkim-key.entity';
import { DomainEntity } from '../database/entities/domain.entity';
import type { DomainSettings } from '../domains/domain-settings';
import type { DomainVerifier } from '../verification/domain-verifier';
import type { RecordOutcome } from '../verification/verification-rules';
import type { DkimKeysRepository } from './dkim-keys.repository';
import { DkimPromotion, RETIRING_KEY_KEPT_MS } from './dkim-promotion';

const now = new Date('2026-11-29T12:00:00Z');
const manager = {} as EntityManager;
const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);

function domain(): DomainEntity {
  return Object.assign(new DomainEntity(), { id: 'dom_1', name: 'example.com', status: 'verified', dkimStatus: 'pending', dkimSelector: 'mr202610', dkimPublicKey: 'OLD', dkimPrivateKeySealed: 'old-sealed' });
}

function pendingKey(createdAt: Date, checkAttempts = 0): DkimKeyEntity {
  return Object.assign(new DkimKeyEntity(), { id: 'dkey_1', domainId: 'dom_1', selector: 'mr202611', status: 'pending', publicKey: 'NEW', privateKeySealed: 'new-sealed', checkAttempts, createdAt, retireAfter: null });
}

function promotion(stored: DkimKeyEntity | null) {
  const calls = { retired: [] as unknown[][], counted: 0 };
  const keys = {
    findPending: async () => stored,
    retireReplaced: async (...args: unknown[]) => void calls.retired.push(args.slice(1)),
    countCheck: async () => void (calls.counted += 1),
  } as unknown as DkimKeysRepository;
  const settings = { schedule: { recheckSchedule: [1000, 5000, 15000] } } as DomainSettings;
  return { subject: new DkimPromotion({} as DomainVerifier, keys, settings), calls };
}

const found: RecordOutcome = { result: 'pass' };
const missing: RecordOutcome = { result: 'fail', problem: 'no CNAME' };

describe(DkimPromotion.name, () => {
  it('promotes a found key that every replica answers: the domain row takes it, the old key retires for a week', async () => {
    const pending = pendingKey(minutesAgo(2));
    const { subject, calls } = promotion(pending);
    const entity = domain();
    const settled = await subject.settle(manager, entity, { pending, outcome: found }, 'manual', now);
    expect(settled).toEqual({ promoted: { previousSelector: 'mr202610', retireAfter: new Date(now.getTime() + RETIRING_KEY_KEPT_MS) }, nextCheckAt: null });
    expect(entity).toMatchObject({ dkimSelector: 'mr202611', dkimPublicKey: 'NEW', dkimPrivateKeySealed: 'new-sealed', dkimStatus: 'verified' });
    expect(calls.retired).toEqual([[pending, { selector: 'mr202610', publicKey: 'OLD', privateKeySealed: 'old-sealed' }, now, new Date(now.getTime() + RETIRING_KEY_KEPT_MS)]]);
  });

  it('waits for a found key made less than a minute ago, looking again when every replica answers it', async () => {
    const pending = pendingKey(new Date(now.getTime() - 55_000), 2);
    const { subject, calls } = promotion(pending);
    const settled = await subject.settle(manager, domain(), { pending, outcome: found }, 'background', now);
    expect(settled).toEqual({ promoted: null, nextCheckAt: new Date(now.getTime() + 5_000) });
    expect(calls.retired).toEqual([]);
  });

  it('counts a background look that did not find the CNAME, on the pending schedule; a verify is no step of it', async () => {
    const pending = pendingKey(minutesAgo(10), 1);
    const background = promotion(pending);
    expect(await background.subject.settle(manager, domain(), { pending, outcome: missing }, 'background', now)).toEqual({ promoted: null, nextCheckAt: new Date(now.getTime() + 15_000) });
    expect(background.calls.counted).toBe(1);
    const manual = promotion(pending);
    expect(await manual.subject.settle(manager, domain(), { pending, outcome: missing }, 'manual', now)).toEqual({ promoted: null, nextCheckAt: new Date(now.getTime() + 5_000) });
    expect(manual.calls.counted).toBe(0);
  });

  it('does not promote a key replaced while the lookups ran (a rotation repeated), nor count the look', async () => {
    const looked = pendingKey(minutesAgo(10));
    const replaced = Object.assign(pendingKey(minutesAgo(10)), { publicKey: 'NEWER' });
    const { subject, calls } = promotion(replaced);
    const entity = domain();
    expect(await subject.settle(manager, entity, { pending: looked, outcome: found }, 'background', now)).toEqual({ promoted: null, nextCheckAt: new Date(now.getTime() + 1_000) });
    expect(entity.dkimSelector).toBe('mr202610');
    expect(calls).toEqual({ retired: [], counted: 0 });
  });

  it('has nothing to do without a pending key', async () => {
    const { subject } = promotion(null);
    expect(await subject.settle(manager, domain(), null, 'background', now)).toEqual({ promoted: null, nextCheckAt: null });
  });
});
