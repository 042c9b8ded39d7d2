import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { configWith } from '@mailroom/config';
import { startWorkerThread } from '@mailroom/runtime';
import { BuildThread } from './build-thread';
import { signMessage } from './build-message';
import { MessageBuilder } from './message-builder';
import { DkimSigningKey, OutgoingEmail } from './outgoing-email';

const EMAIL: OutgoingEmail = {
  id: 'email_01THREAD',
  mode: 'live',
  fromAddress: 'Acme <hi@acme.test>',
  fromEmail: 'hi@acme.test',
  fromDomain: 'acme.test',
  to: ['bob@example.test'],
  cc: [],
  bcc: [],
  replyTo: [],
  subject: 'Built in a thread',
  html: '<p>Hello</p>',
  text: 'Hello',
  headers: { 'X-Campaign': 'spring' },
  attachments: [{ filename: 'receipt.txt', content: Buffer.from('paid').toString('base64'), contentType: 'text/plain' }],
  tags: [],
  messageId: '<email_01THREAD@acme.test>',
  originatedAt: new Date('2030-01-02T03:04:05Z'),
};
const KEY: DkimSigningKey = { domainName: 'acme.test', keySelector: 'mr1', privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey };

/** The message without the DKIM-Signature field Mailroom puts in front of it (the field runs to the first unfolded line). */
function withoutSignature(message: Buffer): Buffer {
  const text = message.toString('latin1');
  expect(text.startsWith('DKIM-Signature: ')).toBe(true);
  const end = /\r\n(?![ \t])/.exec(text)!;
  return message.subarray(end.index + 2);
}

describe(MessageBuilder.name, () => {
  const builders: MessageBuilder[] = [];
  const builder = (threads: number) => {
    const created = new MessageBuilder(configWith('emails', { DATABASE_URL: 'postgres://unused@127.0.0.1/unused', DELIVERY_BUILD_THREADS: String(threads) }));
    builders.push(created);
    return created;
  };
  afterAll(() => Promise.all(builders.map((created) => created.onApplicationShutdown())));

  it.each([1, 2, 0])('with %i build threads, composes the message and signs it exactly as the event loop would', async (threads) => {
    const message = await builder(threads).build(EMAIL, KEY);
    const unsigned = withoutSignature(message);
    const raw = unsigned.toString();
    expect(raw).toMatch(/^Subject: Built in a thread\r$/m);
    expect(raw).toMatch(/^Message-ID: <email_01THREAD@acme\.test>\r$/m);
    expect(raw).toMatch(/^X-Campaign: spring\r$/m);
    expect(raw).toMatch(/filename=receipt\.txt/);
    // PKCS#1 v1.5 signatures are deterministic: signing the same bytes here must give the same message.
    const signedHere = await signMessage(unsigned, KEY);
    expect(message.equals(signedHere)).toBe(true);
  });

  it('builds a test-mode message, which has no key, unsigned', async () => {
    const message = await builder(1).build(EMAIL, null);
    expect(message.toString()).not.toContain('DKIM-Signature');
    expect(message.toString()).toMatch(/^Subject: Built in a thread\r$/m);
  });

  it("fails a build with the thread's reason and goes on building", async () => {
    const threaded = builder(1);
    const unusable = Object.assign({}, KEY, { privateKey: createSecretKey(Buffer.alloc(32, 1)) });
    await expect(threaded.build(EMAIL, unusable)).rejects.toThrow(/key/i);
    await expect(threaded.build(EMAIL, KEY)).resolves.toBeInstanceOf(Buffer);
  });

  it('refuses to build once shut down', async () => {
    const closing = builder(1);
    await closing.onApplicationShutdown();
    await expect(closing.build(EMAIL, KEY)).rejects.toThrow('the message build threads have been closed');
  });
});

describe(BuildThread.name, () => {
  it('fails the builds of a thread that dies, and starts a new thread for the next build', async () => {
    const starts: string[] = [];
    const thread = new BuildThread(() => {
      starts.push(starts.length ? 'real' : 'dying');
      if (starts.length > 1) return startWorkerThread(join(__dirname, 'message-build.worker'));
      return new Worker("require('node:worker_threads').parentPort.on('message', () => process.exit(3))", { eval: true });
    });
    await expect(thread.build(EMAIL, KEY)).rejects.toThrow('the message build thread stopped (exit code 3)');
    // Not restarted when it died (a thread that cannot start would be restarted in a loop), only for the next build.
    expect(starts).toEqual(['dying']);
    await expect(thread.build(EMAIL, KEY)).resolves.toBeInstanceOf(Buffer);
    expect(starts).toEqual(['dying', 'real']);
    await thread.close();
  });

  it('stops a thread that has answered none of its builds for the stall limit, fails them, and builds on in a new thread', async () => {
    const starts: string[] = [];
    // A build that never ends (a pathological input in a parser, say) would otherwise hold every later build, and
    // so every delivery of the process, for good.
    const thread = new BuildThread(
      () => {
        starts.push(starts.length ? 'real' : 'stuck');
        if (starts.length > 1) return startWorkerThread(join(__dirname, 'message-build.worker'));
        return new Worker("const { parentPort } = require('node:worker_threads'); parentPort.on('message', () => { for (;;); }); parentPort.postMessage({ ready: true });", { eval: true });
      },
      // Counted from when a thread says it has loaded, so a slow start (a new real thread's, below) is not a stall.
      { stallMs: 2000 },
    );
    await expect(Promise.all([thread.build(EMAIL, KEY), thread.build(EMAIL, KEY)])).rejects.toThrow('the message build thread answered no build for 2000 ms and was stopped');
    await expect(thread.build(EMAIL, KEY)).resolves.toBeInstanceOf(Buffer);
    expect(starts).toEqual(['stuck', 'real']);
    await thread.close();
  });
});
