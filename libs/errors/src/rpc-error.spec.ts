import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { lastValueFrom } from 'rxjs';
import { DomainError } from './domain-error';
import { ErrorCode } from './error-code';
import { fromRpcError, toRpcErrorPayload } from './rpc-error';
import { DomainErrorRpcFilter } from './rpc-exception.filter';

describe('RPC error mapping', () => {
  it('round-trips a DomainError through its wire payload', () => {
    const original = DomainError.notFound('API key', 'key_x');
    const back = fromRpcError(JSON.parse(JSON.stringify(toRpcErrorPayload(original))));
    expect(back).toBeInstanceOf(DomainError);
    expect(back.code).toBe(ErrorCode.NotFound);
    expect(back.message).toBe(original.message);
    expect(back.httpStatus).toBe(404);
  });

  it('turns a payload without a known code into internal_error without its text', () => {
    const back = fromRpcError({ code: 'EWHATEVER', message: 'relation "keys.api_keys" does not exist' });
    expect(back.code).toBe(ErrorCode.InternalError);
    expect(back.message).not.toContain('relation');
    expect(fromRpcError(new Error('boom')).code).toBe(ErrorCode.InternalError);
  });

  it('turns "no responders" (no replica subscribed) into service_unavailable', () => {
    const back = fromRpcError(new EmptyResponseException('keys.api-key.list'));
    expect(back.code).toBe(ErrorCode.ServiceUnavailable);
    expect(back.httpStatus).toBe(503);
  });

  it('the NATS filter sends a DomainError as is and anything else as internal_error with an error id', async () => {
    const filter = new DomainErrorRpcFilter();
    (filter as unknown as { logger: { error: () => void; warn: () => void } }).logger = { error: () => undefined, warn: () => undefined };
    const caught = (exception: unknown) => lastValueFrom(filter.catch(exception, { switchToRpc: () => ({ getData: () => ({}) }) } as never)).then(() => undefined, (error: unknown) => error);
    expect(await caught(DomainError.forbidden('no'))).toEqual({ code: 'forbidden', message: 'no' });
    const internal = (await caught(new TypeError('secret internals'))) as { code: string; message: string };
    expect(internal.code).toBe('internal_error');
    expect(internal.message).toMatch(/error id/);
    expect(internal.message).not.toContain('secret internals');
    const unavailable = (await caught(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }))) as { code: string; message: string };
    expect(unavailable.code).toBe('service_unavailable');
    expect(unavailable.message).toMatch(/database is unavailable.*error id/);
    expect(unavailable.message).not.toContain('10.0.0.5');
  });
});
