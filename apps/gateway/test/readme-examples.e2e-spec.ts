import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as nats from 'nats';
import { EVENT_STREAM, EventEnvelope } from '@mailroom/contracts';
import { ulid } from '@mailroom/database';
import { eventually, freePort, startStack, Stack } from '@mailroom/testing';
import { readmeReceiverDirectory } from '../../webhook-dispatcher/test/support/readme-receivers';
import { ReadmeExample, readmeExamples, runTypeScriptExample, shapeDifferences } from './support/readme-examples';

/**
 * The README's fenced examples that show a request, an answer, an event or a command, run against a real stack:
 * each is found by the `<!-- example: name -->` line above it and sent as written, only the host, the key and
 * the NATS URL put in, and what comes back is compared with what the example shows or the README says of it.
 */
const ROOT = join(__dirname, '..', '..', '..');
const README_HOST = 'localhost:3000';
const run = promisify(execFile);

/** A shell example, run by bash as written: the README's host and placeholder key replaced with the stack's. */
async function runShell(script: string, env: Record<string, string>, replacements: Array<[string, string]>): Promise<string> {
  const command = replacements.reduce((text, [from, to]) => text.replaceAll(from, to), script);
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', command], { cwd: ROOT, env: Object.assign({ PATH: process.env.PATH ?? '' }, env), timeout: 30_000 });
  return stdout;
}

/** The variables a `NAME=value … npm start` line sets for the stack. */
function startEnvironment(line: string): Record<string, string> {
  const assignments = /^((?:[A-Z_]+=\S+ )+)npm start$/.exec(line.trim());
  if (!assignments) throw new Error(`not a "NAME=value … npm start" line: ${line}`);
  return Object.fromEntries(assignments[1].trim().split(/\s+/).map((assignment) => assignment.split('=') as [string, string]));
}

/** The last event on a subject of the stream that satisfies `matches`, once the outbox relay has published it. */
async function streamEvent(stack: Stack, subject: string, matches: (event: EventEnvelope) => boolean): Promise<EventEnvelope> {
  const connection = await nats.connect({ servers: stack.nats.url });
  try {
    const streams = (await connection.jetstreamManager()).streams;
    return await eventually(async () => {
      const event = (await streams.getMessage(EVENT_STREAM, { last_by_subj: subject })).json<EventEnvelope>();
      return matches(event) && event;
    }, 15_000);
  } finally {
    await connection.close();
  }
}

describe('the README examples, run against the real API', () => {
  const examples = readmeExamples();
  const example = (name: string): ReadmeExample => {
    const found = examples.get(name);
    if (!found) throw new Error(`README.md has no block marked <!-- example: ${name} -->`);
    return found;
  };
  let stack: Stack;
  let host: string;

  beforeAll(async () => {
    // lastUsedAt stays null for the whole suite, so two reads of a key list agree whenever the gateway reports uses.
    // As "Try it locally" starts it: with the switches a receiver on 127.0.0.1 needs.
    stack = await startStack({ env: { LAST_USED_FLUSH_MS: String(10 * 60 * 1000), ...startEnvironment(example('try-it-locally-start').code) } });
    host = new URL(stack.baseUrl).host;
  });
  afterAll(() => stack?.stop());

  it('checks every example the README marks, and the README marks every example checked here', () => {
    expect([...examples.keys()].sort()).toEqual([
      'cli-keys-create',
      'event-envelope',
      'report-bounce',
      'report-complaint',
      'try-it',
      'try-it-locally-send',
      'try-it-locally-start',
      'try-it-locally-webhook',
    ]);
  });

  it('try-it: each curl answers what the API answers that request, not an error', async () => {
    const { info, code } = example('try-it');
    expect(info).toBe('sh');
    const lines = code.split('\n').filter((line) => line.trim() !== '');
    const setup = lines.filter((line) => !line.startsWith('curl '));
    const curls = lines.filter((line) => line.startsWith('curl '));
    expect(curls.length).toBeGreaterThan(0);
    for (const curl of curls) {
      const output = await runShell([...setup, curl].join('\n'), {}, [[README_HOST, host], ['mr_…', stack.rootKey]]);
      const path = new RegExp(`${README_HOST}(\\S*)`).exec(curl)?.[1] ?? '';
      const answer = await stack.api.get(path, { key: curl.includes('Authorization: Bearer $MAILROOM_KEY') ? stack.rootKey : null });
      expect({ curl, status: answer.status }).toEqual({ curl, status: 200 });
      expect({ curl, differences: shapeDifferences(answer.body, JSON.parse(output)) }).toEqual({ curl, differences: [] });
    }
  });

  it('try-it-locally: the webhook and send blocks, run as written in one shell, bring the test email\'s events to receiver.js', async () => {
    const port = await freePort();
    const directory = readmeReceiverDirectory();
    const replacements: Array<[string, string]> = [
      [README_HOST, host],
      ['mr_…', stack.rootKey],
      ['127.0.0.1:4000', `127.0.0.1:${port}`],
    ];
    // The reader sends once the receiver says it listens: the shell waits for its port. Then it waits on the receiver.
    const waitForReceiver = `until (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; do sleep 0.05; done`;
    const script = [example('try-it-locally-webhook').code, waitForReceiver, example('try-it-locally-send').code, 'wait'].join('\n');
    const command = replacements.reduce((text, [from, to]) => text.replaceAll(from, to), script);
    const shell = spawn('bash', ['-euo', 'pipefail', '-c', command], { cwd: directory, env: { PATH: process.env.PATH ?? '', RECEIVER_PORT: String(port) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // The email as the send block reads it back, and the events the receiver prints (in the background of the same
    // terminal, so not anchored to a line: it may print mid-line).
    const emailRead = () => /\{"id":"email_.*?\}(?=email\.|$)/m.exec(output)?.[0];
    try {
      await eventually(() => {
        if (shell.exitCode !== null) throw new Error(`the recipe's shell exited ${shell.exitCode}`);
        return emailRead() !== undefined && /email\.queued evt_\w+\n/.test(output) && /email\.delivered evt_\w+\n/.test(output);
      }, 20_000).catch((error: Error) => {
        throw new Error(`${error.message}; the shell printed: ${output}`);
      });
      // A test email to delivered@ is delivered at once.
      expect(JSON.parse(emailRead()!)).toMatchObject({ object: 'email', to: ['delivered@example.com'], subject: 'Hello' });
    } finally {
      if (shell.exitCode === null) process.kill(-shell.pid!, 'SIGTERM');
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('cli-keys-create: prints the created API key object as JSON, with its key, live and with --test a test key', async () => {
    const { info, code } = example('cli-keys-create');
    expect(info).toBe('sh');
    // `npm run -s cli` builds first (its precli script); the e2e setup has built dist/ already, which another suite may be running.
    const command = code.trim().replace(/^npm run -s cli -- /, 'node dist/scripts/cli.js ');
    expect(command).not.toBe(code.trim());
    const testKey = (await stack.issueKey({ name: 'test reader', mode: 'test' })).key;
    for (const [variant, mode, reader] of [[command.replace(' [--test]', ''), 'live', stack.rootKey], [command.replace('[--test]', '--test'), 'test', testKey]]) {
      const created = JSON.parse(await runShell(variant, { DATABASE_URL: stack.databaseUrl }, []));
      const { key, ...object } = created;
      const stored = await stack.api.get(`/v1/api-keys/${object.id}`, { key: reader });
      expect(stored.status).toBe(200);
      expect({ variant, object }).toEqual({ variant, object: stored.body });
      expect({ variant, mode: object.mode, key: key.startsWith(mode === 'test' ? 'mr_test_' : 'mr_') }).toEqual({ variant, mode, key: true });
      expect({ variant, permissions: object.permissions }).toEqual({ variant, permissions: /--permissions (\S+)/.exec(variant)![1].split(',') });
      // The key printed works: a route is answered by its permissions (200, or 403 for one it lacks), never 401.
      expect([200, 403]).toContain((await stack.api.get('/v1/suppressions', { key })).status);
    }
  });

  it('event-envelope: an email.bounced event has the fields and types the example shows', async () => {
    const { info, code } = example('event-envelope');
    expect(info).toBe('json');
    const shown = JSON.parse(code);
    expect(shown.type).toBe('email.bounced');
    // A test key's bounced@ address bounces with 550 5.1.1 without a mail server, so the event is a test-mode one.
    const { key } = await stack.issueKey({ name: 'bouncer', mode: 'test' });
    const { from, subject, tags } = shown.data;
    const sent = await stack.api.post('/v1/emails', { from, to: ['bounced@example.com'], subject, tags, text: 'Welcome aboard' }, { key });
    expect(sent.status).toBe(202);
    const event = await streamEvent(stack, 'email.bounced', (candidate) => candidate.data.emailId === sent.body.id);
    // Test mode tries no mail server, so its events name none: the example's host is a live event's.
    const asTestMode = Object.assign({}, shown, { mode: 'test', data: Object.assign({}, shown.data, { smtp: Object.assign({}, shown.data.smtp, { host: null }) }) });
    expect(shown.data.smtp.host).toEqual(expect.any(String));
    expect(shapeDifferences(asTestMode, event)).toEqual([]);
  });

  describe('reports from an internal service', () => {
    const recipientOnList = (email: string) =>
      eventually(async () => (await stack.api.get('/v1/suppressions')).body.data.find((entry: { email: string }) => entry.email === email), 15_000);

    it('report-bounce: the bounce as written suppresses its recipient for a bounce, with its reply as details', async () => {
      const { info, code } = example('report-bounce');
      expect(info).toBe('ts');
      // It goes on from the complaint example: its `nc` and `ulid`.
      const nc = await nats.connect({ servers: stack.nats.url });
      try {
        await runTypeScriptExample(code, {}, { nc, ulid });
      } finally {
        await nc.close();
      }
      const published = await streamEvent(stack, 'email.bounced', (event) => event.mode === 'live');
      await eventually(async () => (await recipientOnList(published.data.recipient as string)).reason === 'bounce', 15_000);
      expect(await recipientOnList(published.data.recipient as string)).toMatchObject({ reason: 'bounce', details: (published.data.smtp as { reply: string }).reply });
    });

    it('report-complaint: the complaint as written suppresses its recipient for a complaint, over the bounce, with its feedback', async () => {
      const { info, code } = example('report-complaint');
      expect(info).toBe('ts');
      await runTypeScriptExample(code, { nats, ulid: { ulid } }, { process: { env: { NATS_URL: stack.nats.url } } });
      const published = await streamEvent(stack, 'email.complained', (event) => event.mode === 'live');
      const recipient = published.data.recipient as string;
      await eventually(async () => (await recipientOnList(recipient)).reason === 'complaint', 15_000);
      expect(await recipientOnList(recipient)).toMatchObject({ reason: 'complaint', details: published.data.feedback });
    });
  });
});
