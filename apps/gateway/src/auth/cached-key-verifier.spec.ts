import type { MailroomConfig } from '@mailroom/config';
import type { ApiKeysUsedEvent } from '@mailroom/contracts';
import type { KeysClient } from '../clients/keys.client';
import { CachedKeyVerifier } from './cached-key-verifier';

/** The verifier with a KeysClient that only records the usage reports it is given. */
function verifierRecordingReports() {
  const reports: ApiKeysUsedEvent[] = [];
  const keys = { reportUsed: (event: ApiKeysUsedEvent) => reports.push(event) } as unknown as KeysClient;
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
});
