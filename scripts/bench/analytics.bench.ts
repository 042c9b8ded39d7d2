import { load, report } from './load';
import { startSeededStack } from './seed-emails';

const DAY_MS = 24 * 3_600_000;
const range = (days: number) => {
  const to = Date.now();
  return `from_date=${new Date(to - days * DAY_MS).toISOString()}&to_date=${new Date(to).toISOString()}`;
};

/** GET /v1/analytics over 1,000,000 emails' counters, daily and hourly, with and without domain and tag filters. */
export async function analyticsBench(): Promise<void> {
  const stack = await startSeededStack();
  try {
    // [days back from now, the rest of the query]
    const queries: [number, string][] = [
      [90, 'interval=day'],
      [30, 'interval=day&domain=acme.com'],
      [30, 'interval=day&tags=receipt'],
      [90, 'interval=day&domain=shop.acme.com&tags=receipt,invoice'],
      [7, 'interval=hour'],
      [30, 'interval=hour'],
      [30, 'interval=hour&domain=acme.io&tags=newsletter'],
      [83, 'interval=hour&tags=alert'],
    ];
    const headers = { authorization: `Bearer ${stack.rootKey}` };
    for (const [days, rest] of queries) {
      const url = `${stack.baseUrl}/v1/analytics?${range(days)}&${rest}`;
      await load({ url, headers, duration: 3, connections: 2 });
      const result = await load({ url, headers, duration: 10, connections: 2 });
      report(`analytics GET /v1/analytics (last ${days} days, ${rest})`, result, 'p95 <= 100 ms', result.p95 <= 100 && result.non2xx === 0);
    }
  } finally {
    await stack.stop();
  }
}
