import { PinoLogger, setLogDestination } from './pino-logger';

describe(PinoLogger.name, () => {
  const lines: Record<string, unknown>[] = [];
  beforeEach(() => {
    lines.length = 0;
    setLogDestination({ write: (line: string) => void lines.push(JSON.parse(line)) });
  });
  afterEach(() => setLogDestination(undefined));

  it('logs an Error with its message and stack, as Nest logs a failed boot', () => {
    new PinoLogger('emails', 'info').error(new Error('SMTP relay unreachable'), 'ExceptionHandler');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        app: 'emails',
        context: 'ExceptionHandler',
        msg: 'SMTP relay unreachable',
        err: expect.objectContaining({ name: 'Error', message: 'SMTP relay unreachable', stack: expect.stringContaining('pino-logger.spec') }),
      }),
    ]);
  });

  it('logs a string with its context, and an object with its fields', () => {
    const logger = new PinoLogger('keys', 'info');
    logger.log('ready', 'Bootstrap');
    logger.warn({ keyId: 'key_1' }, 'evicted', 'KeyCache');
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, context: 'Bootstrap', msg: 'ready' }),
      expect.objectContaining({ level: 40, context: 'KeyCache', keyId: 'key_1', msg: 'evicted' }),
    ]);
  });

  it('redacts a credential field whether it is logged at the top or one level down', () => {
    // The object a caller logs is spread at the top of the line: a safety net one level down only missed its own fields.
    new PinoLogger('keys', 'info').warn({ password: 'pw-top', secret: 's-top', key: 'k-top', authorization: 'a-top', request: { password: 'pw-nested' } }, 'careless', 'Somewhere');
    expect(JSON.stringify(lines)).not.toMatch(/pw-top|s-top|k-top|a-top|pw-nested/);
    expect(lines).toEqual([expect.objectContaining({ password: '[Redacted]', secret: '[Redacted]', key: '[Redacted]', authorization: '[Redacted]', request: { password: '[Redacted]' } })]);
  });

  it('keeps the stack Nest passes beside a string message, which alone says why a retry happened', () => {
    new PinoLogger('keys', 'info').error('Unable to connect to the database. Retrying (1)...', 'Error: connect ECONNREFUSED 127.0.0.1:5999', 'TypeOrmModule');
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, context: 'TypeOrmModule', msg: 'Unable to connect to the database. Retrying (1)...', stack: 'Error: connect ECONNREFUSED 127.0.0.1:5999' }),
    ]);
  });
});
