import { parentPort } from 'node:worker_threads';
import { buildMessage } from './build-message';
import { BuildReply, BuildRequest, THREAD_READY } from './message-build.protocol';

/** The thread side of MessageBuilder: composes and signs each message it is sent. */
const port = parentPort;
if (!port) throw new Error('message-build.worker runs only as a worker thread');

port.on('message', ({ id, email, key }: BuildRequest) => {
  buildMessage(email, key).then(
    (message) => {
      // A copy of its own: a small Buffer lives in Node's shared pool, which must not be transferred away.
      const bytes = new Uint8Array(message);
      const reply: BuildReply = { id, bytes };
      port.postMessage(reply, [bytes.buffer]);
    },
    (error: Error) => port.postMessage({ id, error: error.message } satisfies BuildReply),
  );
});

port.postMessage(THREAD_READY);
