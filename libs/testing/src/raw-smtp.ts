import { createServer, Server, Socket } from 'node:net';

/**
 * A step of the dialogue a raw SMTP server answers: the greeting, a command
 * (its verb, upper-case: EHLO, MAIL, RCPT, DATA, RSET, QUIT…), or `message`,
 * the whole message ended by its lone dot. A script that answers DATA itself
 * refuses it: the server then reads what follows as commands.
 */
export type RawSmtpStep = string;

/**
 * Answers one step itself (a stall, a trickle, a reply no SMTP library would
 * send) and returns true, or returns false to leave the plain answer.
 */
export type RawSmtpScript = (step: RawSmtpStep, socket: Socket, line: string) => boolean;

export interface RawSmtp {
  port: number;
  /** Messages received up to their final dot, whatever the server then answered. */
  readonly messages: Buffer[];
  /** TCP connections accepted. */
  readonly connectionCount: number;
  close(): Promise<void>;
}

/** The answers of a well-behaved MX with PIPELINING, for the steps a script leaves alone. */
function plainAnswer(step: RawSmtpStep, socket: Socket): void {
  if (step === 'greeting') socket.write('220 mx.example.test ESMTP\r\n');
  else if (step === 'EHLO') socket.write('250-mx.example.test\r\n250 PIPELINING\r\n');
  else if (step === 'DATA') socket.write('354 go on\r\n');
  else if (step === 'message') socket.write('250 2.0.0 queued\r\n');
  else if (step === 'QUIT') socket.end('221 bye\r\n');
  else socket.write('250 2.1.0 ok\r\n');
}

/**
 * An SMTP server on a raw socket, for the misbehaviour smtp-server cannot be
 * made to show: it speaks the plain dialogue except where `script` takes a
 * step over. Listens on `host:port` (MX hosts of one test share SMTP_MX_PORT).
 */
export async function startRawSmtp(port: number, script: RawSmtpScript, host = '127.0.0.1'): Promise<RawSmtp> {
  const messages: Buffer[] = [];
  const sockets = new Set<Socket>();
  let connectionCount = 0;
  /** Answers the step; true when the plain answer was given (for DATA: a 354, so the message follows). */
  const answer = (step: RawSmtpStep, socket: Socket, line: string) => {
    if (script(step, socket, line)) return false;
    plainAnswer(step, socket);
    return true;
  };
  const server: Server = createServer((socket) => {
    connectionCount += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let inData = false;
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buffer.subarray(0, end + 2));
          buffer = buffer.subarray(end + 5);
          inData = false;
          answer('message', socket, '.');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.subarray(0, eol).toString('latin1');
        buffer = buffer.subarray(eol + 2);
        const step = /^[A-Za-z]+/.exec(line)?.[0].toUpperCase() ?? line;
        // A script that takes DATA over refuses it: no message follows.
        if (answer(step, socket, line) && step === 'DATA') inData = true;
      }
    });
    answer('greeting', socket, '');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port,
    messages,
    get connectionCount() {
      return connectionCount;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Writes `text` one byte every `everyMs` until the socket closes: a server that
 * is never silent long enough for an inactivity timeout, yet never finishes its reply.
 */
export function trickle(socket: Socket, text: string, everyMs: number): void {
  let next = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    socket.write(text[next++ % text.length]);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}
