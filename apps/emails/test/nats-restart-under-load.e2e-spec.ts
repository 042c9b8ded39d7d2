import { acceptedMore, expectEveryAcceptedOnce, faultUnderLoad, StackUnderFault, startStackUnderFault, steadySenderTo } from './support/stack-under-fault';

const RESTARTS = 2;
/** How long the NATS server stays down each time: several RPC round trips, outbox polls and consumer pulls. */
const DOWN_MS = 2500;

/**
 * The stack's NATS server stops and starts again (keeping its store, as a rolling upgrade of the server does)
 * twice while sends, reads and writes go on through the API and mail is delivered. Every answer is 2xx or a
 * clean 503; the apps reconnect without a restart of their own, so RPCs work again; and no event is lost: every
 * accepted email goes out once and its email.delivered reaches the webhook.
 */
describe('the stack across NATS server restarts under load', () => {
  let stack: StackUnderFault;

  beforeAll(async () => {
    stack = await startStackUnderFault();
  }, 60000);

  afterAll(() => stack?.stop());

  it('answers 2xx or a clean 503, recovers its RPCs, and loses no email and no event', async () => {
    const { api, nats } = stack.harness.stack;
    const sender = steadySenderTo(api, 'natsdown');
    const using = await faultUnderLoad(stack, sender, async () => {
      for (let round = 1; round <= RESTARTS; round++) {
        if (round > 1) await acceptedMore(sender);
        await nats.stop();
        // The length of the fault, not a wait for something to happen: the server stays down this long.
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        await nats.restart();
      }
    });

    expect(sender.outcomes.some((outcome) => outcome.refusals.length > 0)).toBe(true);
    // Few: one request of each restart may wait out RPC_TIMEOUT_MS (10 s here), its reply lost with the connection.
    expect(using.requests).toBeGreaterThan(5);
    await expectEveryAcceptedOnce(stack, sender, using.unclean);
  }, 120000);
});
