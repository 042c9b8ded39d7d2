import { ArgumentsHost, Catch, Logger, RpcExceptionFilter } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Observable, throwError } from 'rxjs';
import { DomainError } from './domain-error';
import { isDatabaseUnavailable } from './database-unavailable';
import { ErrorCode } from './error-code';
import { RpcErrorPayload, toRpcErrorPayload } from './rpc-error';

/**
 * Serializes every error a NATS handler throws. A DomainError travels as is;
 * a database that cannot be reached travels as service_unavailable (503, the
 * client may retry); anything else is logged here with an error id and
 * travels as internal_error so no stack or internal text reaches a caller.
 */
@Catch()
export class DomainErrorRpcFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger(DomainErrorRpcFilter.name);

  catch(exception: unknown, _host: ArgumentsHost): Observable<RpcErrorPayload> {
    if (exception instanceof DomainError) return throwError(() => toRpcErrorPayload(exception));
    const errorId = randomUUID();
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({ errorId, err: describe(exception) }, 'database unavailable while handling a NATS request');
      return throwError(() => ({
        code: ErrorCode.ServiceUnavailable,
        message: `The database is unavailable right now; try again shortly (error id ${errorId}).`,
      }));
    }
    this.logger.error({ errorId, err: describe(exception) }, 'unhandled error in NATS handler');
    return throwError(() => ({ code: ErrorCode.InternalError, message: `An internal error occurred (error id ${errorId}).` }));
  }
}

function describe(exception: unknown): { name?: string; message?: string; stack?: string } {
  if (exception instanceof Error) return { name: exception.name, message: exception.message, stack: exception.stack };
  return { message: String(exception) };
}
