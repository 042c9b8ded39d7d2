import { tlsSessionsCounted } from './tlsrpt-metrics';
import { ReportedPolicy, SessionResult, TlsSessionRecorder } from './tls-session';

/** The sessions of one UTC day, policy domain, policy and result, as emails.tlsrpt_counts keeps them. */
export interface CountedSessions {
  /** YYYY-MM-DD, UTC. */
  day: string;
  policyDomain: string;
  policy: ReportedPolicy;
  /** `success`, or the failure's result type. */
  result: string;
  /** The failure's MX host and address; empty for a success (a report gives them only for failures). */
  mxHostname: string;
  ip: string;
  sessions: number;
}

/** Keys kept in memory at once between flushes; past it a session of a new key is dropped (and counted as such). */
const MAX_KEYS = 100_000;

/**
 * The TLS report counts of this process, in memory: mx delivery records each session here (a map update, off the
 * request path and free of I/O), and TlsrptFlusher takes what has gathered every TLSRPT_FLUSH_INTERVAL and adds it to
 * emails.tlsrpt_counts, handing it back when the database would not take it.
 */
export class TlsSessionCounts implements TlsSessionRecorder {
  private counts = new Map<string, CountedSessions>();
  /** Sessions not counted since the last take because MAX_KEYS was reached (a flood of distinct MX hosts). */
  dropped = 0;

  constructor(private readonly now: () => Date = () => new Date()) {}

  record(policyDomain: string, policy: ReportedPolicy, result: SessionResult): void {
    const day = this.now().toISOString().slice(0, 10);
    const failure = result.ok ? { result: 'success', mxHostname: '', ip: '' } : { result: result.resultType, mxHostname: result.mxHostname, ip: result.ip };
    tlsSessionsCounted.labels(failure.result).inc();
    this.add(Object.assign({ day, policyDomain, policy, sessions: 1 }, failure));
  }

  /** Everything counted so far, which is forgotten here. */
  take(): CountedSessions[] {
    const taken = [...this.counts.values()];
    this.counts = new Map();
    return taken;
  }

  /** Counts taken that could not be stored: kept for the next flush. */
  putBack(rows: CountedSessions[]): void {
    for (const row of rows) this.add(row);
  }

  private add(row: CountedSessions): void {
    const key = JSON.stringify([row.day, row.policyDomain, row.policy, row.result, row.mxHostname, row.ip]);
    const kept = this.counts.get(key);
    if (kept) kept.sessions += row.sessions;
    else if (this.counts.size < MAX_KEYS) this.counts.set(key, Object.assign({}, row));
    else this.dropped += row.sessions;
  }
}
