import { LOOPBACK_HOSTS, MailroomConfig } from '@mailroom/config';
import { connectNats, describeBootFailure, natsUrlWithoutCredentials } from '@mailroom/runtime';
import { ErrorCode, NatsConnection, NatsError } from 'nats';

/**
 * Every app keeps its events in JetStream. Debian's (and Ubuntu's) nats-server
 * package runs a service on 127.0.0.1:4222 without it, which npm start took
 * for its NATS since something answered there: it ran the migrations and the
 * apps, which each exited over a bare "503". Asked once, before anything
 * starts, the operator is told what is wrong and the ways out.
 */
export async function assertJetStreamEnabled(config: MailroomConfig): Promise<void> {
  let connection: NatsConnection;
  try {
    connection = await connectNats(config);
  } catch (error) {
    throw new Error(describeBootFailure(error as Error, config));
  }
  try {
    // Asks the server for the account's JetStream info: a server without JetStream has no responder for it (503).
    await connection.jetstreamManager();
  } catch (error) {
    if ((error as NatsError).code === ErrorCode.JetStreamNotEnabled) throw new Error(withoutJetStream(config.NATS_URL));
    throw error;
  } finally {
    await connection.close();
  }
}

function withoutJetStream(natsUrl: string): string {
  const local = LOOPBACK_HOSTS.includes(new URL(natsUrl).hostname);
  const ways = [
    'start it with JetStream (nats-server -js, or a jetstream {} block in its configuration)',
    ...(local ? ["stop it so npm start runs its own there (Debian's and Ubuntu's nats-server package runs one without JetStream: sudo systemctl disable --now nats-server)"] : []),
    `set NATS_URL to a NATS server with JetStream${local ? ', or to a free local port for npm start to run its own on (nats://127.0.0.1:4223)' : ''}`,
  ];
  return `The NATS server at ${natsUrlWithoutCredentials(natsUrl)} runs without JetStream, which every Mailroom app needs for its events. Either ${ways.join('; or ')}.`;
}
