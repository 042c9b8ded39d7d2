import { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { HttpsFailure, httpsExchange, notTaken } from '../outbound-https';
import { certificateResultType, TlsResultType } from '../tls-rpt/tls-session';

/** How long a policy fetch may take in all, connection, TLS, headers and body: RFC 8461 §3.3 suggests a minute at most; this is in a delivery's path. */
export const POLICY_FETCH_TIMEOUT_MS = 10_000;
/** RFC 8461 §3.3: senders may refuse a policy body past 64 KB. */
export const MAX_POLICY_BYTES = 64 * 1024;

export interface PolicyFetchSettings {
  /** MTA_STS_HTTPS_PORT. */
  port: number;
  /** The certificate authorities trusted: Node's roots, plus TLS_EXTRA_CA_FILE's. */
  ca: string[];
  /** How `mta-sts.<domain>` is resolved (policyHostLookup). */
  lookup: LookupFunction;
  timeoutMs?: number;
}

/**
 * Why a fetch gave no policy text, as RFC 8460 §4.3.2.1 names it for TLS reports: the host could not be reached or did
 * not answer 2xx (sts-policy-fetch-error), its certificate was refused (sts-webpki-invalid), or what it served is no
 * policy file (sts-policy-invalid: not text/plain, or too large; text that does not parse is told by the caller).
 */
export type PolicyFetchFailure = Extract<TlsResultType, 'sts-policy-fetch-error' | 'sts-webpki-invalid' | 'sts-policy-invalid'>;

export type PolicyFetch = { ok: true; text: string } | { ok: false; reason: string; failure: PolicyFetchFailure };

/** A socket error or timeout of the exchange, told apart: a certificate refused, or anything else that kept the answer away. */
function exchangeFailure(failed: HttpsFailure): PolicyFetch {
  return { ok: false, reason: failed.reason, failure: certificateResultType(failed.code ?? '') ? 'sts-webpki-invalid' : 'sts-policy-fetch-error' };
}

/**
 * GETs `https://mta-sts.<domain>/.well-known/mta-sts.txt` as RFC 8461 §3.3 says: the certificate must be valid for
 * that host and chain to a trusted CA, redirects are not followed (any answer but a 2xx fails), and the body must be
 * text/plain and at most 64 KB. What went wrong is said in `reason`, for the log.
 */
export function fetchPolicyText(domain: string, settings: PolicyFetchSettings): Promise<PolicyFetch> {
  const host = `mta-sts.${domain}`;
  const options = { host, port: settings.port, path: '/.well-known/mta-sts.txt', servername: host, ca: settings.ca, rejectUnauthorized: true, lookup: settings.lookup, headers: { accept: 'text/plain' } };
  return httpsExchange<PolicyFetch>(options, settings.timeoutMs ?? POLICY_FETCH_TIMEOUT_MS, readPolicy).then((result) => ('failure' in result || result.ok ? result : exchangeFailure(result)));
}

function readPolicy(response: IncomingMessage, finish: (result: PolicyFetch) => void): void {
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) return finish(Object.assign({ failure: 'sts-policy-fetch-error' as const }, notTaken(response)));
  const type = (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'text/plain') return finish({ ok: false, reason: `media type '${type}', not text/plain`, failure: 'sts-policy-invalid' });
  const chunks: Buffer[] = [];
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_POLICY_BYTES) return finish({ ok: false, reason: `a body over ${MAX_POLICY_BYTES} bytes`, failure: 'sts-policy-invalid' });
    chunks.push(chunk);
  });
  response.on('end', () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
  response.on('error', (error) => finish({ ok: false, reason: error.message, failure: 'sts-policy-fetch-error' }));
}
