import { NatsError } from 'nats';
import { failedRequest } from './failed-request-reply';

const replyOf = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8'));

describe(failedRequest.name, () => {
  it("answers a request that is not JSON with invalid_json naming the subject, the caller's mistake", () => {
    const failure = failedRequest('keys.api-key.verify', NatsError.errorForCode('BAD_JSON' as never));
    expect(replyOf(failure.reply)).toEqual({
      err: { code: 'invalid_json', message: `The request on keys.api-key.verify is not JSON (error id ${failure.log.errorId}).` },
      isDisposed: true,
    });
  });

  it('answers any other failure with internal_error, its text only in the log', () => {
    const failure = failedRequest('keys.api-key.verify', new Error('password=hunter2'));
    expect(replyOf(failure.reply)).toEqual({ err: { code: 'internal_error', message: `An internal error occurred (error id ${failure.log.errorId}).` }, isDisposed: true });
    expect(failure.log.err).toBe('password=hunter2');
  });
});
