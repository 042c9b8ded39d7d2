import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from './domain-error';
import { ErrorCode } from './error-code';
import { toHttpDomainError } from './http-error-mapping';

interface ReplyLike {
  status(code: number): ReplyLike;
  header(name: string, value: string): ReplyLike;
  send(body: unknown): unknown;
}

/** Writes every error the gateway answers with as `{ error: { code, message } }`. */
export function sendHttpError(reply: ReplyLike, exception: unknown, logger: Logger): void {
  let error = toHttpDomainError(exception);
  if (!error) {
    const errorId = randomUUID();
    logger.error({ errorId, err: exception instanceof Error ? { name: exception.name, message: exception.message, stack: exception.stack } : String(exception) }, 'unhandled error');
    error = new DomainError(ErrorCode.InternalError, `An internal error occurred (error id ${errorId}).`);
  }
  reply.status(error.httpStatus).header('content-type', 'application/json; charset=utf-8').send(error.toBody());
}

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpErrorFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    sendHttpError(host.switchToHttp().getResponse<ReplyLike>(), exception, this.logger);
  }
}
