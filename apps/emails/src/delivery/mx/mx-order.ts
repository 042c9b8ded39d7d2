export interface MxRecord {
  exchange: string;
  priority: number;
}

/** A mail host name with its MX preference (lower is tried first). */
export interface PreferredHost {
  name: string;
  preference: number;
}

/**
 * A null MX (RFC 7505) is a single MX record of preference 0 whose exchange
 * is the root, '.' (Node's resolver gives it as ''): the domain takes no mail.
 */
export function isNullMx(records: readonly MxRecord[]): boolean {
  return records.some((record) => record.exchange === '' || record.exchange === '.');
}

/** The MX hosts, each once (lower-case, without the trailing dot), in the order to try them. */
export function orderMxHosts(records: readonly MxRecord[], random: () => number = Math.random): PreferredHost[] {
  const hosts = new Map<string, number>();
  for (const record of records) {
    const name = record.exchange.replace(/\.$/, '').toLowerCase();
    hosts.set(name, Math.min(hosts.get(name) ?? record.priority, record.priority));
  }
  return inSendingOrder([...hosts].map(([name, preference]) => ({ name, preference })), random);
}

/**
 * Hosts in the order to try them (RFC 5321 §5.1): ascending preference,
 * shuffled among equal preferences so senders spread their load. Applied to
 * every delivery, also when the route comes from the cache.
 */
export function inSendingOrder<T extends PreferredHost>(hosts: readonly T[], random: () => number = Math.random): T[] {
  return tiersByPreference(hosts).flatMap((tier) => shuffle(tier, random));
}

/**
 * What two recipient domains must share for their recipients to go in one message: the same hosts in the same order
 * of preference, with the same hosts tied (those are shuffled anyway). Two domains served by one provider whose MX
 * records rank its hosts the other way round must not: one domain's mail would go to its backup host while its
 * preferred one is up (RFC 5321 §5.1).
 */
export function sendingOrderKey(hosts: readonly PreferredHost[]): string {
  return tiersByPreference(hosts)
    .map((tier) => tier.map((host) => host.name).sort().join(','))
    .join(' then ');
}

/** The hosts grouped by preference, the most preferred group first, each in the order given. */
function tiersByPreference<T extends PreferredHost>(hosts: readonly T[]): T[][] {
  const byPreference = new Map<number, T[]>();
  for (const host of hosts) byPreference.set(host.preference, [...(byPreference.get(host.preference) ?? []), host]);
  return [...byPreference.keys()].sort((a, b) => a - b).map((preference) => byPreference.get(preference)!);
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
