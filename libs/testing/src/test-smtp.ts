import { SMTPServer, SMTPServerSession } from 'smtp-server';

export interface ReceivedMessage {
  /** MAIL FROM, as the client sent it. */
  mailFrom: string;
  /** RCPT TO addresses the server accepted, as the client sent them: a local part's case is the sender's to keep (RFC 5321 §2.4). */
  rcptTo: string[];
  /** The message exactly as received (headers and body, CRLF line ends). */
  raw: Buffer;
  /** The name the client gave in EHLO/HELO. */
  helo: string;
  remoteAddress: string;
  /** True when the session ran over TLS (STARTTLS or implicit). */
  secure: boolean;
  /** The authenticated user, when the client logged in. */
  user?: string;
  receivedAt: Date;
}

export interface ScriptedReply {
  code: number;
  message: string;
}

/** The DATA reply of one message held back until the test releases it. */
export interface HeldData {
  /** Resolves when a message has been fully received and is waiting for its reply. */
  readonly arrived: Promise<ReceivedMessage>;
  /** Sends the reply (250 by default); a 2xx reply records the message as received. */
  release(reply?: ScriptedReply): void;
}

export interface TestSmtpOptions {
  /** Require AUTH with these credentials (relay tests). */
  auth?: { user: string; pass: string };
  /** Neither advertise nor take STARTTLS (a client that sends it all the same is refused). */
  disableStartTls?: boolean;
  /** The certificate STARTTLS (or implicit TLS) presents, PEM; by default the smtp-server package's self-signed one. */
  tls?: { key: string; cert: string };
  /** Implicit TLS from the first byte (port 465 style). */
  secure?: boolean;
  /**
   * Advertise STARTTLS but fail every handshake (the server offers only TLS 1.0, which current clients
   * refuse), as an old or misconfigured MX does.
   */
  brokenTls?: boolean;
  /** The loopback address to listen on (default 127.0.0.1); a second MX host of a test can take 127.0.0.2. */
  host?: string;
  /** The port to listen on (default: a free one); MX hosts of one test share SMTP_MX_PORT. */
  port?: number;
}

export interface TestSmtp {
  host: string;
  port: number;
  /** Messages the server answered 2xx to, oldest first. */
  readonly messages: ReceivedMessage[];
  /** TCP connections accepted since start (or the last clear()). */
  readonly connectionCount: number;
  /** Refuses the next `times` AUTH attempts with this reply, whatever the credentials (auth servers only). */
  failAuth(code: number, message: string, times?: number): void;
  /** Greets the next `times` connections with this reply instead of 220, and closes them. */
  failGreeting(code: number, message: string, times?: number): void;
  /** Answers the next `times` DATA commands with this reply instead of 250. */
  failNext(code: number, message: string, times?: number): void;
  /** Answers the next `times` MAIL FROM commands with this reply instead of 250. */
  failSender(code: number, message: string, times?: number): void;
  /** Answers RCPT TO for this address with this reply until clear(). */
  rejectRecipient(address: string, code: number, message: string): void;
  /** Takes at most this many recipients a transaction until clear(), answering the next ones 452 4.5.3, as Gmail does past 100. */
  limitRecipients(perTransaction: number): void;
  /** Holds back the reply to the next DATA until the test releases it. */
  holdNextData(): HeldData;
  /** Messages whose envelope (RCPT TO) includes the address in any case; a bcc recipient appears only there. */
  messagesFor(address: string): ReceivedMessage[];
  /** Forgets messages, scripted replies and the connection count. */
  clear(): void;
  /** Closes the listener and every open connection: clients see the server go down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function smtpError(reply: ScriptedReply): Error {
  return Object.assign(new Error(reply.message), { responseCode: reply.code });
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/**
 * A real SMTP server on 127.0.0.1 (random port) for e2e tests, built on the
 * smtp-server package. It offers STARTTLS with the package's self-signed
 * certificate, so mx-mode clients exercise opportunistic TLS. Tests script its
 * replies per RCPT and per DATA and can take it down and bring it back on the
 * same port.
 */
export async function startTestSmtp(options: TestSmtpOptions = {}): Promise<TestSmtp> {
  const messages: ReceivedMessage[] = [];
  const dataFailures: ScriptedReply[] = [];
  const greetingFailures: ScriptedReply[] = [];
  const authFailures: ScriptedReply[] = [];
  const senderFailures: ScriptedReply[] = [];
  const host = options.host ?? '127.0.0.1';
  const rejectedRecipients = new Map<string, ScriptedReply>();
  const holds: Array<{ arrived: (message: ReceivedMessage) => void; reply: Promise<ScriptedReply> }> = [];
  let recipientLimit = Infinity;
  let connectionCount = 0;
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;

  const messageOf = (session: SMTPServerSession, raw: Buffer): ReceivedMessage => ({
    mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
    raw,
    helo: session.hostNameAppearsAs,
    remoteAddress: session.remoteAddress,
    secure: session.secure,
    user: session.user as string | undefined,
    receivedAt: new Date(),
  });

  const create = () =>
    new SMTPServer({
      secure: options.secure ?? false,
      name: 'mx.test-smtp.invalid',
      logger: false,
      disableReverseLookup: true,
      hideSTARTTLS: options.disableStartTls ?? false,
      disabledCommands: options.disableStartTls ? ['STARTTLS'] : [],
      ...(options.tls ?? {}),
      // Unset, Node's default applies; the server's own default minVersion is already TLSv1.
      maxVersion: options.brokenTls ? 'TLSv1' : undefined,
      authOptional: !options.auth,
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: true,
      closeTimeout: 50,
      size: 50 * 1024 * 1024,
      onConnect: (_session, callback) => {
        connectionCount += 1;
        const refusal = greetingFailures.shift();
        callback(refusal ? smtpError(refusal) : undefined);
      },
      onAuth: (auth, _session, callback) => {
        const refusal = authFailures.shift();
        if (refusal) return callback(smtpError(refusal));
        if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) {
          return callback(null, { user: auth.username });
        }
        callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      },
      onMailFrom: (_address, _session, callback) => {
        const refusal = senderFailures.shift();
        callback(refusal ? smtpError(refusal) : undefined);
      },
      onRcptTo: (address, session, callback) => {
        const reply = rejectedRecipients.get(address.address.toLowerCase());
        if (reply) return callback(smtpError(reply));
        const full = session.envelope.rcptTo.length >= recipientLimit;
        callback(full ? smtpError({ code: 452, message: '4.5.3 Too many recipients' }) : undefined);
      },
      onData: (stream, session, callback) => {
        readAll(stream).then(async (raw) => {
          const message = messageOf(session, raw);
          const hold = holds.shift();
          let reply: ScriptedReply | undefined = dataFailures.shift();
          if (hold) {
            hold.arrived(message);
            reply = await hold.reply;
          }
          if (reply && (reply.code < 200 || reply.code >= 300)) return callback(smtpError(reply));
          messages.push(message);
          callback(null, reply?.message ?? '2.0.0 Ok: queued');
        }, callback);
      },
    });

  const listen = async () => {
    const instance = create();
    instance.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      instance.server.once('error', reject);
      instance.listen(port, host, () => resolve());
    });
    port = (instance.server.address() as { port: number }).port;
    server = instance;
  };

  const stop = async () => {
    const instance = server;
    server = undefined;
    if (!instance) return;
    await new Promise<void>((resolve) => {
      instance.close(() => resolve());
      // Drop open (pooled) client connections at once, as a crashed server would.
      for (const connection of instance.connections) connection.close();
    });
  };

  await listen();

  return {
    host,
    get port() {
      return port;
    },
    messages,
    get connectionCount() {
      return connectionCount;
    },
    failAuth(code, message, times = 1) {
      for (let i = 0; i < times; i++) authFailures.push({ code, message });
    },
    failGreeting(code, message, times = 1) {
      for (let i = 0; i < times; i++) greetingFailures.push({ code, message });
    },
    failNext(code, message, times = 1) {
      for (let i = 0; i < times; i++) dataFailures.push({ code, message });
    },
    failSender(code, message, times = 1) {
      for (let i = 0; i < times; i++) senderFailures.push({ code, message });
    },
    rejectRecipient(address, code, message) {
      rejectedRecipients.set(address.toLowerCase(), { code, message });
    },
    limitRecipients(perTransaction) {
      recipientLimit = perTransaction;
    },
    holdNextData() {
      let arrived!: (message: ReceivedMessage) => void;
      let release!: (reply: ScriptedReply) => void;
      const arrivedPromise = new Promise<ReceivedMessage>((resolve) => (arrived = resolve));
      const reply = new Promise<ScriptedReply>((resolve) => (release = resolve));
      holds.push({ arrived, reply });
      return { arrived: arrivedPromise, release: (value = { code: 250, message: '2.0.0 Ok: queued' }) => release(value) };
    },
    messagesFor(address) {
      const wanted = address.toLowerCase();
      return messages.filter((message) => message.rcptTo.some((address) => address.toLowerCase() === wanted));
    },
    clear() {
      messages.length = 0;
      dataFailures.length = 0;
      greetingFailures.length = 0;
      authFailures.length = 0;
      senderFailures.length = 0;
      rejectedRecipients.clear();
      recipientLimit = Infinity;
      holds.length = 0;
      connectionCount = 0;
    },
    stop,
    start: async () => {
      if (!server) await listen();
    },
    close: stop,
  };
}
