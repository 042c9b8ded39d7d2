import { DnsDeadline, lookupChannel } from '@mailroom/runtime';

/** A TXT lookup's answer: the records (each as its character-strings), none (NXDOMAIN, NODATA), or a failure. */
export type TxtAnswer = { kind: 'records'; records: string[][] } | { kind: 'none' } | { kind: 'failed'; reason: string };

const NO_DATA = new Set(['ENODATA', 'ENOTFOUND']);

/** The TXT records of `name` through DNS_SERVERS, as MX records are looked up, within one DNS_TIMEOUT_MS. */
export async function txtRecords(name: string, servers: string[], timeoutMs: number): Promise<TxtAnswer> {
  const channel = lookupChannel(servers, timeoutMs);
  const deadline = new DnsDeadline(channel, timeoutMs);
  try {
    return { kind: 'records', records: await deadline.within(name, channel.resolveTxt(name)) };
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return NO_DATA.has(code ?? '') ? { kind: 'none' } : { kind: 'failed', reason: code ?? message };
  } finally {
    deadline.end();
  }
}
