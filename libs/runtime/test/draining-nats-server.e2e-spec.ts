import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { startPrivateNats, PrivateNats } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import { drainingNatsServer } from '../src/nats-options';
import { NoReplyError, ReplyFailure, ReplyInbox } from '../src/reply-inbox';

const SUBJECT = 'drain.echo';

@Controller()
class EchoController {
  @MessagePattern(SUBJECT)
  async echo(@Payload() payload: unknown): Promise<unknown> {
    // Work that takes a little while, as a commit does: requests pile up in flight while the service closes.
    await new Promise((resolve) => setTimeout(resolve, 5));
    return payload;
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/**
 * A service replica that closes while requests stream in: every request it
 * took must be answered. One the NATS server routed to it before it saw the
 * replica unsubscribe, but that reached the replica after, was dropped by the
 * client and its caller waited out the whole RPC timeout for a 503.
 */
describe('DrainingNatsServer closing under a stream of requests', () => {
  let nats: PrivateNats;
  let requester: NatsConnection;

  beforeAll(async () => {
    nats = await startPrivateNats();
    requester = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    await requester?.close();
    await nats?.destroy();
  });

  it('answers every request it took; the rest find no responders at once, none waits for its timeout', async () => {
    const service = await NestFactory.createMicroservice(EchoModule, Object.assign(drainingNatsServer({ NATS_URL: nats.url }, 'drain-test'), { logger: false as const }));
    await service.listen();
    const inbox = new ReplyInbox(requester);
    const outcomes: Array<'answered' | ReplyFailure> = [];
    const requests: Promise<void>[] = [];
    let streaming = true;
    let sent = 0;
    const stream = async () => {
      while (streaming) {
        const payload = JSON.stringify({ pattern: SUBJECT, data: sent, id: String(sent) });
        sent += 1;
        requests.push(
          inbox.request(SUBJECT, payload, 3000).then(
            () => void outcomes.push('answered'),
            (error: unknown) => void outcomes.push(error instanceof NoReplyError ? error.reason : 'timeout'),
          ),
        );
        // A few requests a loop turn, without end until the service is gone.
        if (sent % 4 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const streaming$ = stream();
    while (outcomes.filter((outcome) => outcome === 'answered').length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
    await service.close();
    // Requests sent after the close find nobody: once some have, everything the replica could have taken is behind.
    while (outcomes.filter((outcome) => outcome === 'no_responders').length < 50) await new Promise((resolve) => setTimeout(resolve, 5));
    streaming = false;
    await streaming$;
    await Promise.all(requests);

    const count = (kind: string) => outcomes.filter((outcome) => outcome === kind).length;
    expect({ total: outcomes.length, timeouts: count('timeout') }).toEqual({ total: sent, timeouts: 0 });
    expect(count('answered')).toBeGreaterThanOrEqual(200);
  }, 60000);
});
