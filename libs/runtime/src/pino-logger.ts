import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

let logDestination: pino.DestinationStream | undefined;

/** Where loggers created from now on write (stdout by default); tests use it to read what would be logged. */
export function setLogDestination(destination: pino.DestinationStream | undefined): void {
  logDestination = destination;
}

/**
 * A safety net, not the defence: fields of these names are written as [Redacted], at the top of a line (where the
 * object a caller logs is spread) and one level down. `*.key` alone missed a top-level `key`.
 */
const CREDENTIAL_FIELDS = ['authorization', 'key', 'secret', 'password'];

/**
 * JSON logs through pino, with Nest's context as `context`. Secrets never
 * reach here by construction: nothing logs keys, hashes or bodies.
 */
export class PinoLogger implements LoggerService {
  private readonly logger: Logger;

  constructor(app: string, level: string) {
    const options = { level, base: { app }, redact: CREDENTIAL_FIELDS.flatMap((field) => [field, `*.${field}`]) };
    this.logger = logDestination ? pino(options, logDestination) : pino(options);
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: pino.Level, message: unknown, rest: unknown[]): void {
    // Nest passes the context as the last string argument.
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    if (message instanceof Error) {
      // Nest's ExceptionHandler logs a failed boot this way; spreading an Error would keep neither its message nor its stack.
      this.logger[level]({ context, err: { name: message.name, message: message.message, stack: message.stack } }, message.message);
    } else if (message && typeof message === 'object') {
      const text = typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
      this.logger[level]({ context, ...(message as object) }, text);
    } else if (typeof rest[0] === 'string') {
      // Nest's error(message, stack, context): TypeORM's "Unable to connect to the database. Retrying" says why only in the stack.
      this.logger[level]({ context, stack: rest[0] }, String(message));
    } else {
      this.logger[level]({ context }, String(message));
    }
  }
}
