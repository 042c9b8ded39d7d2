import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { fstatSync } from 'node:fs';
import { createServer, connect, AddressInfo } from 'node:net';

/**
 * Figures of the machine itself, printed above every bench: the same code
 * has given twice the throughput on one day's machine as on another's, and
 * these say which kind of machine a figure came from. Hashing is plain CPU;
 * an RSA-2048 signature is what every DKIM-signed message costs at the
 * least (so 1,000 messages/s need that many milliseconds of CPU each
 * second); a system call and a loopback round trip are what a stack of
 * processes talking over sockets pays on every message, and sandboxes
 * differ most there.
 */
export async function calibrateMachine(): Promise<string> {
  const hashesPerSecond = countFor(500, () => createHash('sha256').update(ONE_KIB).digest());
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signatureMillis = 1000 / countFor(500, () => sign('sha256', ONE_KIB, privateKey));
  const syscallMicros = 500_000 / countFor(500, () => fstatSync(0));
  const roundTripsPerSecond = await loopbackRoundTrips(500);
  return (
    `machine: ${Math.round(hashesPerSecond / 1000)}k sha256(1 KiB)/s, ${signatureMillis.toFixed(2)} ms per RSA-2048 signature, ` +
    `${syscallMicros.toFixed(2)} µs per system call, ${Math.round(roundTripsPerSecond / 1000)}k loopback TCP round trips/s`
  );
}

const ONE_KIB = Buffer.alloc(1024, 'x');

/** How many times `work` ran in `ms` milliseconds, as a rate per second. */
function countFor(ms: number, work: () => void): number {
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < ms) {
    work();
    count += 1;
  }
  return (count * 1000) / (performance.now() - started);
}

/** One byte echoed back and forth over a loopback TCP connection for `ms` milliseconds. */
async function loopbackRoundTrips(ms: number): Promise<number> {
  const server = createServer((socket) => socket.on('data', (data) => socket.write(data)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', resolve));
  const started = performance.now();
  let count = 0;
  await new Promise<void>((resolve) => {
    client.on('data', () => {
      count += 1;
      if (performance.now() - started < ms) client.write('x');
      else resolve();
    });
    client.write('x');
  });
  client.destroy();
  await new Promise((resolve) => server.close(resolve));
  return (count * 1000) / (performance.now() - started);
}
