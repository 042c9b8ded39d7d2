import type { StsPolicy } from '../mta-sts/sts-policy';
import type { SmtpOutcome } from '../smtp-outcome';

/** RFC 8460 §4.3's result types this sending MTA reports (the DANE ones never: DANE is not done). */
export type TlsResultType =
  | 'starttls-not-supported'
  | 'certificate-host-mismatch'
  | 'certificate-expired'
  | 'certificate-not-trusted'
  | 'validation-failure'
  | 'sts-policy-fetch-error'
  | 'sts-policy-invalid'
  | 'sts-webpki-invalid';

/** The policy a session ran under, as a report names it (RFC 8460 §4.4 "policy"). */
export type ReportedPolicy = { type: 'sts'; string: string[]; mxHost: string[] } | { type: 'no-policy-found' };

/** What one SMTP session attempt counts as in a report: TLS negotiated, or a failure of a result type. */
export type SessionResult = { ok: true } | { ok: false; resultType: TlsResultType; mxHostname: string; ip: string };

/** Where mx delivery tells of each session it attempted (TlsrptCounts); absent with TLSRPT=off. */
export interface TlsSessionRecorder {
  record(policyDomain: string, policy: ReportedPolicy, result: SessionResult): void;
}

export const NO_POLICY: ReportedPolicy = { type: 'no-policy-found' };

/**
 * The policy as a report names it: an MTA-STS policy in enforce or testing mode as its policy file's lines
 * (rebuilt from the cached policy: the file itself is not kept, only what it says) and its mx patterns; a policy in
 * none mode or no policy as no-policy-found (RFC 8461 §5: none is the way a domain withdraws its policy).
 */
export function reportedPolicy(policy: StsPolicy | null): ReportedPolicy {
  if (!policy || policy.mode === 'none') return NO_POLICY;
  const lines = ['version: STSv1', `mode: ${policy.mode}`, ...policy.mx.map((pattern) => `mx: ${pattern}`), `max_age: ${policy.maxAgeSeconds}`];
  return { type: 'sts', string: lines, mxHost: [...policy.mx] };
}

/** OpenSSL's and Node's codes for a chain that does not lead to a trusted CA. */
const NOT_TRUSTED = /^(UNABLE_TO_GET_ISSUER_CERT|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_UNTRUSTED|CERT_REJECTED|CERT_CHAIN_TOO_LONG|INVALID_CA)$/;

/** Why a certificate was refused, as RFC 8460 names it, from Node's error code; undefined for a code that is no certificate's. */
export function certificateResultType(code: string): 'certificate-host-mismatch' | 'certificate-expired' | 'certificate-not-trusted' | undefined {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'certificate-host-mismatch';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return 'certificate-expired';
  if (NOT_TRUSTED.test(code)) return 'certificate-not-trusted';
  return undefined;
}

/**
 * The RFC 8460 result type of a session that failed in TLS, from its outcome: a host that refused the STARTTLS
 * command (or does not offer it where TLS was required) is starttls-not-supported; a certificate refused names why;
 * anything else that broke the handshake is validation-failure. undefined for an outcome that is no TLS failure.
 */
export function tlsResultTypeOf(outcome: SmtpOutcome): TlsResultType | undefined {
  if (outcome.startTlsRefused) return 'starttls-not-supported';
  if (!outcome.tlsFailed) return undefined;
  return certificateResultType(outcome.tlsCode ?? '') ?? 'validation-failure';
}

/**
 * What one session to an MX host address counts as, from what it did to the recipients it carried:
 * - a TLS failure (the handshake, the certificate, STARTTLS refused) fails, with its result type, except where
 *   `plaintextFallback` is allowed (opportunistic TLS to a domain without a policy): that session then went on
 *   in plaintext, which is no TLS failure for reporting (nothing required TLS), and counts as nothing;
 * - a session that got through (some recipient was not "host unavailable") succeeds when TLS was negotiated; in
 *   plaintext (the host offers no STARTTLS) it fails as starttls-not-supported under an MTA-STS policy (testing
 *   mode: it asks to hear of it), and counts as nothing without one;
 * - a host that could not be reached or refused the session before TLS counts as nothing: no TLS was tried.
 */
export function sessionResult(outcomes: SmtpOutcome[], session: { mxHostname: string; ip: string; tlsNegotiated: boolean; underPolicy: boolean }): SessionResult | null {
  const failed = outcomes.map(tlsResultTypeOf).find(Boolean);
  if (failed) return session.underPolicy || failed === 'starttls-not-supported' ? { ok: false, resultType: failed, mxHostname: session.mxHostname, ip: session.ip } : null;
  const gotThrough = outcomes.some((outcome) => !outcome.hostUnavailable);
  if (!gotThrough) return null;
  if (session.tlsNegotiated) return { ok: true };
  return session.underPolicy ? { ok: false, resultType: 'starttls-not-supported', mxHostname: session.mxHostname, ip: session.ip } : null;
}
