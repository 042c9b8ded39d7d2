import { ArgumentsHost, Logger } from '@nestjs/common';
import { lastValueFrom } from 'rxjs';
import { DomainErrorRpcFilter } from './rpc-exception.filter';

/** The host of a NATS handler whose payload carries the gateway's request context. */
const hostWith = (data: unknown) => ({ switchToRpc: () => ({ getData: () => data }) }) as unknown as ArgumentsHost;

describe(DomainErrorRpcFilter.name, () => {
  afterEach(() => jest.restoreAllMocks());

  it("logs an unexpected error with the gateway's request id, so the gateway's log line and the service's join", async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const answer = lastValueFrom(new DomainErrorRpcFilter().catch(new Error('boom'), hostWith({ ctx: { requestId: 'req-7' }, body: {} })));
    await expect(answer).rejects.toMatchObject({ code: 'internal_error' });
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ requestId: 'req-7', errorId: expect.any(String) }), expect.any(String));
  });

  it('logs without a request id when the payload carries none', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    await expect(lastValueFrom(new DomainErrorRpcFilter().catch(new Error('boom'), hostWith('not an object')))).rejects.toMatchObject({ code: 'internal_error' });
    expect(errors.mock.calls[0][0]).not.toHaveProperty('requestId');
  });
});
