import type { LookupFunction } from 'node:net';
import { HttpsFailure, httpsExchange, notTaken } from '../outbound-https';

/** How long one POST may take in all: connection, TLS, the upload and the answer's headers. */
export const REPORT_POST_TIMEOUT_MS = 30_000;

export interface ReportPostSettings {
  /** The certificate authorities trusted: Node's roots, plus TLS_EXTRA_CA_FILE's. */
  ca: string[];
  /** How the host is resolved: policyHostLookup, so a rua cannot aim the POST at a non-public address. */
  lookup: LookupFunction;
  timeoutMs?: number;
}

export type ReportPost = { ok: true } | HttpsFailure;

/**
 * POSTs a gzipped report to an https: rua (RFC 8460 §5.2) as application/tlsrpt+gzip: the certificate must be valid
 * for the host and chain to a trusted CA, redirects are not followed (only a 2xx counts as taken), and the whole
 * exchange ends within the timeout.
 */
export function postReport(url: string, gzipped: Buffer, settings: ReportPostSettings): Promise<ReportPost> {
  const target = new URL(url);
  const options = {
    host: target.hostname,
    port: target.port || 443,
    path: `${target.pathname}${target.search}`,
    method: 'POST',
    servername: target.hostname,
    ca: settings.ca,
    rejectUnauthorized: true,
    lookup: settings.lookup,
    headers: { 'content-type': 'application/tlsrpt+gzip', 'content-length': gzipped.length },
  };
  return httpsExchange<ReportPost>(
    options,
    settings.timeoutMs ?? REPORT_POST_TIMEOUT_MS,
    (response, finish) => {
      response.resume();
      const status = response.statusCode ?? 0;
      finish(status >= 200 && status <= 299 ? { ok: true } : notTaken(response));
    },
    gzipped,
  );
}
