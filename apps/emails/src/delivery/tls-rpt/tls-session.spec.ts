import { outcomeFromError } from '../smtp-outcome';
import { NO_POLICY, reportedPolicy, sessionResult, tlsResultTypeOf } from './tls-session';

const at = { mxHostname: 'mx.example.com', ip: '192.0.2.1' };
const accepted = { kind: 'accepted' as const, code: 250, reply: '250 OK' };

describe(tlsResultTypeOf.name, () => {
  it('names a refused certificate by why it was refused, from the outcome of the error nodemailer gives', () => {
    const tls = (originalCode: string) => tlsResultTypeOf(outcomeFromError({ code: 'ESOCKET', command: 'CONN', originalCode, message: 'x' }));
    expect(tls('ERR_TLS_CERT_ALTNAME_INVALID')).toBe('certificate-host-mismatch');
    expect(tls('CERT_HAS_EXPIRED')).toBe('certificate-expired');
    expect(tls('UNABLE_TO_VERIFY_LEAF_SIGNATURE')).toBe('certificate-not-trusted');
    expect(tls('DEPTH_ZERO_SELF_SIGNED_CERT')).toBe('certificate-not-trusted');
    expect(tls('ERR_SSL_UNSUPPORTED_PROTOCOL')).toBe('validation-failure');
  });

  it('says starttls-not-supported for a refused STARTTLS, and nothing for an outcome that is no TLS failure', () => {
    expect(tlsResultTypeOf(outcomeFromError({ code: 'ETLS', command: 'STARTTLS', responseCode: 502, response: '502 5.5.1 unrecognized command' }))).toBe('starttls-not-supported');
    expect(tlsResultTypeOf(outcomeFromError({ code: 'ESOCKET', command: 'CONN', message: 'connect ECONNREFUSED 127.0.0.1:25' }))).toBeUndefined();
    expect(tlsResultTypeOf(accepted)).toBeUndefined();
  });
});

describe(sessionResult.name, () => {
  const altname = outcomeFromError({ code: 'ESOCKET', command: 'CONN', originalCode: 'ERR_TLS_CERT_ALTNAME_INVALID', message: 'x' });
  const refused = outcomeFromError({ code: 'ESOCKET', command: 'CONN', message: 'connect ECONNREFUSED' });

  it('counts a session that got through over TLS as a success, under a policy or not', () => {
    expect(sessionResult([accepted], Object.assign({ tlsNegotiated: true, underPolicy: true }, at))).toEqual({ ok: true });
    expect(sessionResult([accepted], Object.assign({ tlsNegotiated: true, underPolicy: false }, at))).toEqual({ ok: true });
  });

  it('counts a TLS failure with its host and address under a policy; without one, a handshake that fell back to plaintext is nothing', () => {
    expect(sessionResult([altname], Object.assign({ tlsNegotiated: false, underPolicy: true }, at))).toEqual(Object.assign({ ok: false, resultType: 'certificate-host-mismatch' }, at));
    expect(sessionResult([altname], Object.assign({ tlsNegotiated: false, underPolicy: false }, at))).toBeNull();
  });

  it('counts a plaintext session as starttls-not-supported only under a policy, and an unreachable host never', () => {
    expect(sessionResult([accepted], Object.assign({ tlsNegotiated: false, underPolicy: true }, at))).toEqual(Object.assign({ ok: false, resultType: 'starttls-not-supported' }, at));
    expect(sessionResult([accepted], Object.assign({ tlsNegotiated: false, underPolicy: false }, at))).toBeNull();
    expect(sessionResult([refused], Object.assign({ tlsNegotiated: false, underPolicy: true }, at))).toBeNull();
  });
});

describe(reportedPolicy.name, () => {
  it("names an enforce or testing policy by its file's lines and mx patterns, and none mode or no policy as no-policy-found", () => {
    expect(reportedPolicy({ mode: 'enforce', mx: ['mx.example.com', '*.example.net'], maxAgeSeconds: 86400 })).toEqual({
      type: 'sts',
      string: ['version: STSv1', 'mode: enforce', 'mx: mx.example.com', 'mx: *.example.net', 'max_age: 86400'],
      mxHost: ['mx.example.com', '*.example.net'],
    });
    expect(reportedPolicy({ mode: 'none', mx: [], maxAgeSeconds: 86400 })).toBe(NO_POLICY);
    expect(reportedPolicy(null)).toBe(NO_POLICY);
  });
});
