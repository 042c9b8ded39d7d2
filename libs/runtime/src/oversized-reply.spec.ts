import { replacementForOversizedReply } from './oversized-reply';

const reply = (size: number) => Buffer.from(JSON.stringify({ id: 'req-7', response: { data: 'x'.repeat(size) }, isDisposed: true }));

describe(replacementForOversizedReply.name, () => {
  it('leaves a reply that fits, with room for headers, and any reply when the limit is unknown', () => {
    expect(replacementForOversizedReply(reply(10_000), 1_048_576)).toBeNull();
    expect(replacementForOversizedReply(reply(2_000_000), undefined)).toBeNull();
  });

  it('replaces one that does not with a payload_too_large error for the same request', () => {
    const oversized = reply(1_048_576);
    const replacement = replacementForOversizedReply(oversized, 1_048_576);
    expect(JSON.parse(replacement!.toString())).toEqual({
      id: 'req-7',
      isDisposed: true,
      err: { code: 'payload_too_large', message: `The answer is ${oversized.length} bytes, more than the 1048576 bytes this installation's message bus carries (NATS max_payload); ask for fewer items, or raise max_payload.` },
    });
    // The headers' room counts: a reply just under the limit is replaced too.
    expect(replacementForOversizedReply(reply(1_048_576 - 4000), 1_048_576)).not.toBeNull();
  });

  it('measures a string reply in bytes', () => {
    expect(replacementForOversizedReply(JSON.stringify({ id: 'a', response: 'é'.repeat(600_000) }), 1_048_576)).not.toBeNull();
  });
});
