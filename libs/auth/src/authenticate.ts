import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { Permission, RequestContext, VerifiedApiKey } from '@mailroom/contracts';
import { DomainError, ErrorCode, quotedForMessage } from '@mailroom/errors';
import { hashApiKey, parseApiKey } from './api-key-format';
import { ApiKeyVerifier, AuthOptions, REVOKED_KEY } from './auth.tokens';
import { ipAllowed } from './ip-restriction';
import { grants } from './permissions';

export interface AuthRequest {
  authorization: string | undefined;
  /**
   * How many Authorization headers came (1 when not known). Node keeps only
   * the first in `headers`, while a proxy in front may have checked another.
   */
  authorizationHeaders?: number;
  clientIp: string;
  requestId: string | undefined;
  now: Date;
}

/** What authentication reads from an HTTP request (Fastify's, whether in a hook or a guard). */
export interface HttpRequestLike {
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  /** Node's request: its headersDistinct keeps every copy of a header that `headers` reduces to the first. */
  raw?: { headersDistinct?: Record<string, string[] | undefined> };
}

export function authRequestOf(request: HttpRequestLike, now = new Date()): AuthRequest {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return {
    authorization: header('authorization'),
    authorizationHeaders: request.raw?.headersDistinct?.authorization?.length,
    clientIp: request.ip,
    requestId: header('x-request-id'),
    now,
  };
}

/** Rule 6 alone, for a caller already authenticated against rules 1–5. */
export function assertGranted(key: VerifiedApiKey, required: Permission): void {
  if (!grants(key.permissions, required)) {
    throw DomainError.forbidden(`This API key lacks the permission '${required}'.`);
  }
}

const unauthorized = (message: string) => new DomainError(ErrorCode.Unauthorized, message);

/**
 * A 401 that learns the sender nothing about a secret: a key that was issued
 * and is no longer valid (deleted or expired), or a test key while test mode
 * is off (none is looked up). AUTH_FAILURE_LIMIT does not count it: a client
 * left on a rotated-out key, or pointed with a test key at a server without
 * test mode, would otherwise lock every client of its address out. Its
 * message is a 401's like any other.
 */
export class NotAGuessError extends DomainError {
  constructor(message: string) {
    super(ErrorCode.Unauthorized, message);
  }
}
const UNKNOWN_KEY = 'The API key is unknown or has been deleted.';

/**
 * The client address as a message shows it: as written when it is an address, else quoted as any client text
 * is (cut to 64 characters, controls escaped). Behind TRUSTED_PROXIES it is read from X-Forwarded-For, which a
 * trusted peer may pass on as it was sent: 5,000 characters, a tab or a C1 control came back whole and raw.
 */
const shownAddress = (address: string) => (isIP(address) ? address : quotedForMessage(address));
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The interface's authentication rules 1–6, in order. Pure apart from the
 * verifier, so the rules are unit-tested without HTTP.
 */
export async function authenticate(
  request: AuthRequest,
  required: Permission,
  verifier: ApiKeyVerifier,
  options: AuthOptions,
): Promise<{ ctx: RequestContext; key: VerifiedApiKey }> {
  // Spaces and tabs only (RFC 9110's whitespace): Node reads header bytes as Latin-1, so \s also took a no-break
  // space (byte 0xA0) pasted with a key as a separator, and a key with one after it authenticated.
  const match = /^Bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(request.authorization ?? '');
  if (!request.authorization) throw unauthorized('Missing Authorization header; send "Authorization: Bearer <API key>".');
  if ((request.authorizationHeaders ?? 1) > 1) {
    throw unauthorized(`Send one Authorization header, not ${request.authorizationHeaders}: which key the request means is ambiguous.`);
  }
  if (!match) throw unauthorized('The Authorization header must have the form "Bearer <API key>".');
  const mode = parseApiKey(match[1]);
  if (!mode) throw unauthorized('The API key is malformed.');
  if (mode === 'test' && !options.testModeEnabled) throw new NotAGuessError('Test keys are disabled on this server (TEST_MODE_ENABLED=false).');

  const key = await verifier.verify(hashApiKey(match[1]));
  if (!key) throw unauthorized(UNKNOWN_KEY);
  if (key === REVOKED_KEY) throw new NotAGuessError(UNKNOWN_KEY);
  if (key.expiresAt && Date.parse(key.expiresAt) <= request.now.getTime()) throw new NotAGuessError('The API key has expired.');
  // A valid key is in use even when refused below: a leaked key tried from another address shows in lastUsedAt.
  verifier.recordUse(key.keyId);
  if (!ipAllowed(request.clientIp, key.ipRestrictions)) {
    throw DomainError.forbidden(`Requests from IP address ${shownAddress(request.clientIp)} are not authorized for this API key (ipRestrictions).`);
  }
  assertGranted(key, required);
  const requestId = request.requestId && REQUEST_ID.test(request.requestId) ? request.requestId : randomUUID();
  return {
    key,
    ctx: { requestId, keyId: key.keyId, mode: key.mode, permissions: key.permissions, domainRestrictions: key.domainRestrictions },
  };
}
