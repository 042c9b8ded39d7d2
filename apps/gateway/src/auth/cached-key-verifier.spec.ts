import { Logger } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import type { ApiKeysUsedEvent, ApiKeyVerifyReply, VerifiedApiKey } from '@mailroom/contracts';
import { REVOKED_KEY } from '@mailroom/auth';
import type { KeysClient } from '../clients/keys.client';
import { CachedKeyVerifier } from './cached-key-verifier';

/** The verifier with a KeysClient that only records the usage reports it is given, refusing the first `failures`. */
function verifierRecordingReports(failures = 0) {
  const reports: ApiKeysUsedEvent[] = [];
  let refused = 0;
  const keys = {
    recordUses: async (event: ApiKeysUsedEvent) => {
      reports.push(event);
      if (refused < failures) {
        refused += 1;
        throw new Error('no keys replica answered');
      }
    },
  } as unknown as KeysClient;
  const config = { KEY_CACHE_TTL_MS: 30_000, LAST_USED_FLUSH_MS: 600_000 } as MailroomConfig;
  return { verifier: new CachedKeyVerifier(keys, config), reports };
}

describe(CachedKeyVerifier.name, () => {
  it('reports each key with the time of its own last use', async () => {
    const { verifier, reports } = verifierRecordingReports();
    const before = Date.now();
    verifier.recordUse('key_a');
    verifier.recordUse('key_b');
    await verifier.onModuleDestroy();
    expect(reports).toHaveLength(1);
    expect(reports[0].keyIds).toEqual(['key_a', 'key_b']);
    for (const keyId of ['key_a', 'key_b']) expect(Date.parse(reports[0].usedAtByKey![keyId])).toBeGreaterThanOrEqual(before);
    expect(reports[0].usedAt).toBe(reports[0].usedAtByKey!.key_b);
  });

  it('still reports a use recorded after the final flush (the HTTP server closes after the modules are destroyed)', async () => {
    const { verifier, reports } = verifierRecordingReports();
    await verifier.onModuleDestroy();
    verifier.recordUse('key_late');
    expect(reports.map((report) => report.keyIds)).toEqual([['key_late']]);
  });

  it('says calmly, once, that the uses of its last reports went unrecorded when the keys service is gone at shutdown (Ctrl-C stops every process at once)', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { verifier } = verifierRecordingReports(3);
      verifier.recordUse('key_a');
      await verifier.onModuleDestroy();
      verifier.recordUse('key_b');
      await new Promise((resolve) => setImmediate(resolve));
      expect(errors).not.toHaveBeenCalled();
      expect(warnings).toHaveBeenCalledTimes(1);
    } finally {
      errors.mockRestore();
      warnings.mockRestore();
    }
  });

  it('sends the uses of a report the keys service did not record again with the next, a later use of a key replacing its earlier one', async () => {
    const { verifier, reports } = verifierRecordingReports(1);
    verifier.recordUse('key_a');
    verifier.recordUse('key_b');
    await verifier.onModuleDestroy();
    const refusedReport = reports[0];
    verifier.recordUse('key_b');
    await new Promise((resolve) => setImmediate(resolve));
    expect(reports).toHaveLength(2);
    expect(reports[1].keyIds.sort()).toEqual(['key_a', 'key_b']);
    expect(reports[1].usedAtByKey!.key_a).toBe(refusedReport.usedAtByKey!.key_a);
    expect(Date.parse(reports[1].usedAtByKey!.key_b)).toBeGreaterThanOrEqual(Date.parse(refusedReport.usedAtByKey!.key_b));
  });

  it('reports many keys in several reports of at most 1000, each key once', async () => {
    const { verifier, reports } = verifierRecordingReports();
    const keyIds = Array.from({ length: 2500 }, (_, index) => `key_${index}`);
    for (const keyId of keyIds) verifier.recordUse(keyId);
    await verifier.onModuleDestroy();
    expect(reports.map((report) => report.keyIds.length)).toEqual([1000, 1000, 500]);
    expect(reports.flatMap((report) => report.keyIds)).toEqual(keyIds);
    for (const report of reports) expect(Object.keys(report.usedAtByKey!)).toEqual(report.keyIds);
  });

  it('asks the keys service once about an unknown or deleted key within the TTL, and every time when the cache is off', async () => {
    const asked: string[] = [];
    const keys = {
      verify: async (keyHash: string) => {
        asked.push(keyHash);
        return { key: null, revoked: keyHash === 'deleted-hash' };
      },
    } as unknown as KeysClient;
    const verifier = new CachedKeyVerifier(keys, { KEY_CACHE_TTL_MS: 30_000, LAST_USED_FLUSH_MS: 600_000 } as MailroomConfig);
    expect(await verifier.verify('unknown-hash')).toBeNull();
    expect(await verifier.verify('unknown-hash')).toBeNull();
    expect(await verifier.verify('other-hash')).toBeNull();
    expect(asked).toEqual(['unknown-hash', 'other-hash']);

    expect(await verifier.verify('deleted-hash')).toBe(REVOKED_KEY);
    expect(await verifier.verify('deleted-hash')).toBe(REVOKED_KEY);
    expect(asked).toEqual(['unknown-hash', 'other-hash', 'deleted-hash']);

    const uncached = new CachedKeyVerifier(keys, { KEY_CACHE_TTL_MS: 0, LAST_USED_FLUSH_MS: 600_000 } as MailroomConfig);
    await uncached.verify('unknown-hash');
    await uncached.verify('unknown-hash');
    expect(asked.slice(3)).toEqual(['unknown-hash', 'unknown-hash']);
  });

  it('answers every concurrent lookup of a deleted key as deleted from one question to the keys service, and remembers it so', async () => {
    const { verifier, asked, answer } = verifierWithGatedLookups();
    const lookups = [verifier.verify('deleted-hash'), verifier.verify('deleted-hash'), verifier.verify('deleted-hash')];
    answer({ key: null, revoked: true });
    expect(await Promise.all(lookups)).toEqual([REVOKED_KEY, REVOKED_KEY, REVOKED_KEY]);
    expect(await verifier.verify('deleted-hash')).toBe(REVOKED_KEY);
    expect(asked).toEqual(['deleted-hash']);
  });

  it('asks the keys service once for many concurrent lookups of the same uncached key, and once for each other key', async () => {
    const { verifier, asked, answer } = verifierWithGatedLookups();
    const lookups = [...Array(50).fill('valid-hash'), 'other-hash'].map((hash) => verifier.verify(hash));
    answer({ key: VALID_KEY, revoked: false });
    const answers = await Promise.all(lookups);
    expect(answers.every((key) => key === VALID_KEY)).toBe(true);
    expect(asked).toEqual(['valid-hash', 'other-hash']);
  });

  it('hands a failed lookup to every caller sharing it and keeps nothing of it: the next caller asks again', async () => {
    const { verifier, asked, fail, answer } = verifierWithGatedLookups();
    const lookups = [verifier.verify('valid-hash'), verifier.verify('valid-hash')].map((lookup) => lookup.then(() => 'answered', (error: Error) => error.message));
    fail(new Error('no keys replica answered'));
    expect(await Promise.all(lookups)).toEqual(['no keys replica answered', 'no keys replica answered']);
    const retried = verifier.verify('valid-hash');
    answer({ key: VALID_KEY, revoked: false });
    expect(await retried).toBe(VALID_KEY);
    expect(asked).toEqual(['valid-hash', 'valid-hash']);
  });

  it('does not let a caller arriving after a key change join a lookup that started before it: that answer may predate the change', async () => {
    const { verifier, asked, answer } = verifierWithGatedLookups();
    const before = verifier.verify('valid-hash');
    verifier.evict(VALID_KEY.keyId);
    const after = verifier.verify('valid-hash');
    answer({ key: VALID_KEY, revoked: false });
    await Promise.all([before, after]);
    // clear(): NATS reconnected, and a change may have been missed meanwhile.
    const beforeClear = verifier.verify('other-hash');
    verifier.clear();
    const afterClear = verifier.verify('other-hash');
    answer({ key: VALID_KEY, revoked: false });
    await Promise.all([beforeClear, afterClear]);
    expect(asked).toEqual(['valid-hash', 'valid-hash', 'other-hash', 'other-hash']);
  });
});

const VALID_KEY: VerifiedApiKey = { keyId: 'key_valid', mode: 'live', permissions: ['full_access'], domainRestrictions: [], ipRestrictions: [], expiresAt: null };

/**
 * The verifier with a KeysClient whose lookups wait until the test answers
 * (or fails) them all at once, so the test decides what is in flight together.
 */
function verifierWithGatedLookups() {
  const asked: string[] = [];
  let waiting: Array<{ resolve: (reply: ApiKeyVerifyReply) => void; reject: (error: Error) => void }> = [];
  const keys = {
    verify: (keyHash: string) => {
      asked.push(keyHash);
      return new Promise<ApiKeyVerifyReply>((resolve, reject) => waiting.push({ resolve, reject }));
    },
  } as unknown as KeysClient;
  const settle = (how: (lookup: (typeof waiting)[number]) => void) => {
    const settling = waiting;
    waiting = [];
    settling.forEach(how);
  };
  const verifier = new CachedKeyVerifier(keys, { KEY_CACHE_TTL_MS: 30_000, LAST_USED_FLUSH_MS: 600_000 } as MailroomConfig);
  return {
    verifier,
    asked,
    answer: (reply: ApiKeyVerifyReply) => settle((lookup) => lookup.resolve(reply)),
    fail: (error: Error) => settle((lookup) => lookup.reject(error)),
  };
}
