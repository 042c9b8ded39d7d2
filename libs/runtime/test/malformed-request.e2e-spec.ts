import { KeysEvents, KeysSubjects } from '@mailroom/contracts';
import { AppProcess, createMigratedTestDatabase, dropTestDatabase, eventually, freePort, PrivateNats, PROCESS_READY_TIMEOUT_MS, startAppProcess, startPrivateNats } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';

/**
 * A message on a service's request subject that is no request (not JSON: a
 * client of another version, a tool, a typo on the command line), sent to a
 * service running as its own process, as in production.
 */
describe('a service sent a message that is not JSON', () => {
  let nats: PrivateNats;
  let databaseUrl: string;
  let connection: NatsConnection;
  let keys: AppProcess | undefined;

  beforeAll(async () => {
    nats = await startPrivateNats();
    databaseUrl = await createMigratedTestDatabase();
    connection = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    if (keys && keys.child.exitCode === null && keys.child.signalCode === null) {
      keys.child.kill('SIGTERM');
      await keys.exited;
    }
    await connection?.close();
    await nats?.destroy();
    await dropTestDatabase(databaseUrl).catch(() => undefined);
  });

  it('answers a request with invalid_json at once, logs an event, stays up and answers the next request', async () => {
    const healthPort = await freePort();
    keys = startAppProcess('keys', { NATS_URL: nats.url, DATABASE_URL: databaseUrl, HEALTH_PORT: String(healthPort) });
    await eventually(() => fetch(`http://127.0.0.1:${healthPort}/health/ready`).then((response) => response.status === 200, () => false), PROCESS_READY_TIMEOUT_MS);

    // An event nobody answers: logged, and nothing else.
    connection.publish(KeysEvents.used, 'this is not JSON either');
    // Answered at once with an error naming the subject, rather than never: the process used to exit on it (code 1).
    const refused = await connection.request(KeysSubjects.verify, 'this is not JSON', { timeout: 5000 });
    expect(JSON.parse(Buffer.from(refused.data).toString('utf8'))).toEqual({
      err: { code: 'invalid_json', message: expect.stringMatching(/^The request on keys\.api-key\.verify is not JSON \(error id [0-9a-f-]{36}\)\.$/) },
      isDisposed: true,
    });

    const request = JSON.stringify({ pattern: KeysSubjects.verify, data: { hash: 'f'.repeat(64) }, id: 'after-the-malformed-one' });
    const reply = await connection.request(KeysSubjects.verify, request, { timeout: 5000 });
    expect(JSON.parse(Buffer.from(reply.data).toString('utf8'))).toHaveProperty('id', 'after-the-malformed-one');
    expect({ exitCode: keys.child.exitCode, signal: keys.child.signalCode }).toEqual({ exitCode: null, signal: null });
    // Logged by the process as it goes, so read once written.
    await eventually(() => /message on keys\.api-key\.verify could not be handled/.test(keys!.stdout()) && /message on api-key\.used could not be handled/.test(keys!.stdout()), 5000);
  }, PROCESS_READY_TIMEOUT_MS + 30_000);
});
