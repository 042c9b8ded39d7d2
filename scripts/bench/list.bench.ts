import { issueKeyDirectly } from '../issue-key';
import { load, report } from './load';
import { startSeededStack } from './seed-emails';

const DAY_MS = 24 * 3_600_000;
/** An odd instant, so date filters cut days and hours rather than landing on bucket edges. */
const ago = (days: number) => new Date(Date.now() - days * DAY_MS - 37 * 60_000 - 4_321).toISOString();

/**
 * GET /v1/emails over 1,000,000 emails: one page and its totalCount per
 * filter. Two connections, because the target is latency, not throughput.
 * The last two filters are not bucketed (ALL of two tags, a recipient) and
 * count by index scan; they are reported for the record.
 */
export async function listBench(): Promise<void> {
  const stack = await startSeededStack();
  try {
    const restricted = await issueKeyDirectly(stack.databaseUrl, {
      name: 'bench restricted',
      mode: 'live',
      permissions: ['*'],
      domainRestrictions: ['acme.com', 'acme.io'],
      ipRestrictions: [],
      expiresAt: null,
    });
    const filters: [string, string][] = [
      ['', stack.rootKey],
      ['status=delivered', stack.rootKey],
      ['tags=receipt', stack.rootKey],
      ['status=bounced&tags=newsletter', stack.rootKey],
      [`from_date=${ago(30)}`, stack.rootKey],
      [`from_date=${ago(40)}&to_date=${ago(33)}&status=delivered`, stack.rootKey],
      [`from_date=${ago(2)}&to_date=${ago(1)}&tags=alert`, stack.rootKey],
      ['status=sent (key restricted to 2 domains)', restricted.key],
      ['tags=receipt,invoice', stack.rootKey],
      ['to=user123@example.com', stack.rootKey],
    ];
    for (const [query, key] of filters) {
      const url = `${stack.baseUrl}/v1/emails?${query.replace(/ \(.*\)$/, '')}`;
      const headers = { authorization: `Bearer ${key}` };
      const first = (await (await fetch(url, { headers })).json()) as { totalCount: number };
      await load({ url, headers, duration: 3, connections: 2 });
      const result = await load({ url, headers, duration: 10, connections: 2 });
      report(`list GET /v1/emails?${query} (totalCount ${first.totalCount})`, result, 'p95 <= 50 ms', result.p95 <= 50 && result.non2xx === 0);
    }
  } finally {
    await stack.stop();
  }
}
