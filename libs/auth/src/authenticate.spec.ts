import type { VerifiedApiKey } from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { generateApiKey, hashApiKey } from './api-key-format';
import { ApiKeyVerifier, AuthOptions, REVOKED_KEY } from './auth.tokens';
import { authenticate, AuthRequest, NotAGuessError } from './authenticate';

const NOW = new Date('2030-01-01T00:00:00Z');

/** A verifier over an in-memory table of hash → key, recording which keys were used. */
function fakeVerifier(keys: Record<string, VerifiedApiKey> = {}) {
  const used: string[] = [];
  const verifier: ApiKeyVerifier & { used: string[]; lookups: number } = {
    used,
    lookups: 0,
    async verify(hash) {
      verifier.lookups += 1;
      return keys[hash] ?? null;
    },
    recordUse: (keyId) => used.push(keyId),
  };
  return verifier;
}

function verifiedKey(overrides: Partial<VerifiedApiKey> = {}): VerifiedApiKey {
  return { keyId: 'key_01J00000000000000000000000', mode: 'live', permissions: ['*'], domainRestrictions: [], ipRestrictions: [], expiresAt: null, ...overrides };
}

/** A stored key and the verifier that knows it. */
function setup(overrides: Partial<VerifiedApiKey> = {}, options: AuthOptions = { testModeEnabled: true }) {
  const key = verifiedKey(overrides);
  const secret = generateApiKey(key.mode);
  const verifier = fakeVerifier({ [hashApiKey(secret)]: key });
  const request = (extra: Partial<AuthRequest> = {}): AuthRequest => ({ authorization: `Bearer ${secret}`, clientIp: '127.0.0.1', requestId: undefined, now: NOW, ...extra });
  return { key, secret, verifier, options, request };
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe(authenticate.name, () => {
  it('accepts a valid key, forwards the verified caller and records the use', async () => {
    const { key, verifier, options, request } = setup({ permissions: ['api-keys:*'], domainRestrictions: ['example.com'] });
    const result = await authenticate(request({ requestId: 'req-123' }), 'api-keys:*', verifier, options);
    expect(result.key).toBe(key);
    expect(result.ctx).toEqual({ requestId: 'req-123', keyId: key.keyId, mode: 'live', permissions: ['api-keys:*'], domainRestrictions: ['example.com'] });
    expect(verifier.used).toEqual([key.keyId]);
  });

  it('replaces a missing or unsafe request id with a fresh one', async () => {
    const { verifier, options, request } = setup();
    const generated = await authenticate(request({ requestId: 'bad id\nwith newline' }), '*', verifier, options);
    expect(generated.ctx.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rule 3: a missing header is unauthorized', async () => {
    const { verifier, options, request } = setup();
    const error = await failure(authenticate(request({ authorization: undefined }), '*', verifier, options));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toMatch(/Missing Authorization header/);
  });

  it.each([
    ['a scheme other than Bearer', (secret: string) => `Basic ${secret}`],
    ['no scheme', (secret: string) => secret],
    ['two tokens', (secret: string) => `Bearer ${secret} extra`],
  ])('rule 3: a header with %s is unauthorized', async (_label, header) => {
    const { secret, verifier, options, request } = setup();
    const error = await failure(authenticate(request({ authorization: header(secret) }), '*', verifier, options));
    expect(error.code).toBe(ErrorCode.Unauthorized);
  });

  // Node reads header bytes as Latin-1, so a byte 0xA0 pasted with the key arrives as U+00A0, which \s matched.
  it.each([
    ['a no-break space after the key', (secret: string) => `Bearer ${secret}\u00a0`],
    ['a no-break space for the space after Bearer', (secret: string) => `Bearer\u00a0${secret}`],
    ['a no-break space before the key', (secret: string) => `Bearer \u00a0${secret}`],
  ])('rule 3: a key with %s is malformed, without asking the verifier', async (_label, header) => {
    const { secret, verifier, options, request } = setup();
    const error = await failure(authenticate(request({ authorization: header(secret) }), '*', verifier, options));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toMatch(/malformed|form "Bearer <API key>"/);
    expect(verifier.lookups).toBe(0);
  });

  it('takes a key after spaces or tabs, the whitespace HTTP lets a header hold', async () => {
    const { key, secret, verifier, options, request } = setup();
    for (const header of [`Bearer  ${secret}`, `Bearer\t${secret}`, `bearer ${secret} \t`]) {
      expect((await authenticate(request({ authorization: header }), '*', verifier, options)).key).toBe(key);
    }
  });

  it('rule 3: more than one Authorization header is unauthorized without asking the verifier', async () => {
    const { verifier, options, request } = setup();
    const error = await failure(authenticate(request({ authorizationHeaders: 2 }), '*', verifier, options));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toMatch(/one Authorization header, not 2/);
    expect(verifier.lookups).toBe(0);
  });

  it('rule 3: a malformed key is unauthorized without asking the verifier', async () => {
    const { secret, verifier, options, request } = setup();
    const flipped = secret.slice(0, -1) + (secret.endsWith('a') ? 'b' : 'a');
    const error = await failure(authenticate(request({ authorization: `Bearer ${flipped}` }), '*', verifier, options));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toMatch(/malformed/);
    expect(verifier.lookups).toBe(0);
  });

  it('rule 3: an unknown (or deleted) key is unauthorized', async () => {
    const { verifier, options, request } = setup();
    const error = await failure(authenticate(request({ authorization: `Bearer ${generateApiKey('live')}` }), '*', verifier, options));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toMatch(/unknown or has been deleted/);
    expect(error).not.toBeInstanceOf(NotAGuessError);
  });

  it('rule 3: a deleted key is unauthorized with the message of an unknown one, as a key that was issued (no guess)', async () => {
    const secret = generateApiKey('live');
    const verifier = { verify: async () => REVOKED_KEY, recordUse: () => undefined } as ApiKeyVerifier;
    const error = await failure(authenticate({ authorization: `Bearer ${secret}`, clientIp: '127.0.0.1', requestId: undefined, now: NOW }, '*', verifier, { testModeEnabled: true }));
    expect(error).toBeInstanceOf(NotAGuessError);
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toBe('The API key is unknown or has been deleted.');
  });

  it('an expired key is unauthorized (a key that was issued, no guess), one that expires later is accepted', async () => {
    const expired = setup({ expiresAt: NOW.toISOString() });
    const error = await failure(authenticate(expired.request(), '*', expired.verifier, expired.options));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error).toBeInstanceOf(NotAGuessError);
    const valid = setup({ expiresAt: new Date(NOW.getTime() + 1000).toISOString() });
    await expect(authenticate(valid.request(), '*', valid.verifier, valid.options)).resolves.toBeDefined();
  });

  it('rule 3: a test key is unauthorized while test mode is disabled, and accepted when enabled', async () => {
    const disabled = setup({ mode: 'test' }, { testModeEnabled: false });
    const error = await failure(authenticate(disabled.request(), '*', disabled.verifier, disabled.options));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toMatch(/TEST_MODE_ENABLED/);
    // No test key is looked up while test mode is off, so sending one guesses nothing (AUTH_FAILURE_LIMIT).
    expect(error).toBeInstanceOf(NotAGuessError);
    const enabled = setup({ mode: 'test' });
    expect((await authenticate(enabled.request(), '*', enabled.verifier, enabled.options)).ctx.mode).toBe('test');
  });

  it('rule 4: a key without the required permission is forbidden, naming the permission', async () => {
    const { verifier, options, request } = setup({ permissions: ['emails:send'] });
    const error = await failure(authenticate(request(), 'api-keys:*', verifier, options));
    expect(error.code).toBe(ErrorCode.Forbidden);
    expect(error.message).toContain("'api-keys:*'");
  });

  it('records the use of a valid key refused for its permissions or ipRestrictions (a leaked key tried from elsewhere shows in lastUsedAt), never of a key refused as unauthorized', async () => {
    const { key, verifier, options, request } = setup({ permissions: ['emails:send'], ipRestrictions: ['10.0.0.0/8'] });
    await failure(authenticate(request({ clientIp: '10.0.0.1' }), 'api-keys:*', verifier, options));
    await failure(authenticate(request({ clientIp: '192.0.2.1' }), 'emails:send', verifier, options));
    expect(verifier.used).toEqual([key.keyId, key.keyId]);
    const expired = setup({ expiresAt: '2029-12-31T00:00:00Z' });
    await failure(authenticate(expired.request(), '*', expired.verifier, expired.options));
    expect(expired.verifier.used).toEqual([]);
  });

  it('rule 4: * grants every permission', async () => {
    const { verifier, options, request } = setup({ permissions: ['*'] });
    await expect(authenticate(request(), 'analytics:read', verifier, options)).resolves.toBeDefined();
  });

  it('rule 5: a client outside ipRestrictions is forbidden with a message about its IP address', async () => {
    const { verifier, options, request } = setup({ ipRestrictions: ['10.0.0.0/8', '::1'] });
    const error = await failure(authenticate(request({ clientIp: '192.0.2.1' }), '*', verifier, options));
    expect(error.code).toBe(ErrorCode.Forbidden);
    expect(error.message).toMatch(/IP address 192\.0\.2\.1/);
    await expect(authenticate(request({ clientIp: '10.9.9.9' }), '*', verifier, options)).resolves.toBeDefined();
    await expect(authenticate(request({ clientIp: '::ffff:10.9.9.9' }), '*', verifier, options)).resolves.toBeDefined();
    await expect(authenticate(request({ clientIp: '::1' }), '*', verifier, options)).resolves.toBeDefined();
  });
});
