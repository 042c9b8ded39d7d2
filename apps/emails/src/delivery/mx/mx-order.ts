export interface MxRecord {
  exchange: string;
  priority: number;
}

/**
 * A null MX (RFC 7505) is a single MX record of preference 0 whose exchange
 * is the root, '.' (Node's resolver gives it as ''): the domain takes no mail.
 */
export function isNullMx(records: readonly MxRecord[]): boolean {
  return records.some((record) => record.exchange === '' || record.exchange === '.');
}

/**
 * The MX hosts in the order to try them (RFC 5321 §5.1): ascending
 * preference, shuffled among equal preferences so senders spread their load.
 */
export function orderMxHosts(records: readonly MxRecord[], random: () => number = Math.random): string[] {
  const byPreference = new Map<number, string[]>();
  for (const record of records) {
    const host = record.exchange.replace(/\.$/, '').toLowerCase();
    const hosts = byPreference.get(record.priority) ?? [];
    if (!hosts.includes(host)) hosts.push(host);
    byPreference.set(record.priority, hosts);
  }
  return [...byPreference.keys()].sort((a, b) => a - b).flatMap((preference) => shuffle(byPreference.get(preference)!, random));
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
