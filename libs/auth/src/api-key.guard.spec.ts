import { Controller, ExecutionContext, Get } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { VerifiedApiKey } from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { generateApiKey, hashApiKey } from './api-key-format';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyVerifier } from './auth.tokens';
import { AuthenticatedRequest, Public, RequirePermission } from './decorators';

@Controller('v1/things')
@RequirePermission('domains:*')
class GuardedController {
  @Get()
  list(): void {}
}

@Controller('open')
@Public()
class OpenController {
  @Get()
  read(): void {}
}

const KEY: VerifiedApiKey = { keyId: 'key_01J00000000000000000000000', mode: 'live', permissions: ['domains:*'], domainRestrictions: [], ipRestrictions: [], expiresAt: null };

/** A guard whose verifier knows one key, and a context for a request to `controller`. */
function setup(controller: new () => object, request: Record<string, unknown>) {
  const secret = generateApiKey('live');
  const verifier = { lookups: 0, verify: async (hash: string) => ((verifier.lookups += 1), hash === hashApiKey(secret) ? KEY : null), recordUse: () => undefined };
  const guard = new ApiKeyGuard(new Reflector(), verifier as ApiKeyVerifier & { lookups: number }, { testModeEnabled: true });
  const handler = Object.getOwnPropertyDescriptor(controller.prototype, controller === GuardedController ? 'list' : 'read')!.value;
  const http = { ip: '127.0.0.1', headers: { authorization: `Bearer ${secret}` }, ...request };
  const context = { getHandler: () => handler, getClass: () => controller, switchToHttp: () => ({ getRequest: () => http }) } as unknown as ExecutionContext;
  return { guard, verifier, context, http: http as typeof http & AuthenticatedRequest };
}

describe(ApiKeyGuard.name, () => {
  it('authenticates a request that arrives with no verdict, and leaves one', async () => {
    const { guard, verifier, context, http } = setup(GuardedController, {});
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(verifier.lookups).toBe(1);
    expect(http.mailroom?.key).toBe(KEY);
  });

  it('reuses a verdict reached before the body was read, with no second lookup', async () => {
    const { guard, verifier, context } = setup(GuardedController, { mailroom: { key: KEY, ctx: {} } });
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(verifier.lookups).toBe(0);
  });

  it('still refuses a reused verdict whose key lacks the permission, naming it', async () => {
    const { guard, context } = setup(GuardedController, { mailroom: { key: { ...KEY, permissions: ['emails:read'] }, ctx: {} } });
    const error = await guard.canActivate(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: ErrorCode.Forbidden, message: expect.stringContaining("'domains:*'") });
  });

  it('lets a public route through without a key', async () => {
    const { guard, verifier, context } = setup(OpenController, { headers: {} });
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(verifier.lookups).toBe(0);
  });
});
