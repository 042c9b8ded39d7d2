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

  catch(exception: unknown, host: ArgumentsHost): Observable<RpcErrorPayload> {
    if (exception instanceof DomainError) return throwError(() => toRpcErrorPayload(exception));
    const errorId = randomUUID();
    const logged = Object.assign(requestIdOf(host), { errorId, err: describe(exception) });
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn(logged, 'database unavailable while handling a NATS request');
      return throwError(() => ({
        code: ErrorCode.ServiceUnavailable,
        message: `The database is unavailable right now; try again shortly (error id ${errorId}).`,
      }));
    }
    this.logger.error(logged, 'unhandled error in NATS handler');
    return throwError(() => ({ code: ErrorCode.InternalError, message: `An internal error occurred (error id ${errorId}).` }));
  }
}

/**
 * The gateway's request id, from the request context every API payload carries (the gateway checked it against
 * a strict pattern), so a service's error line and the gateway's access line join; nothing when there is none.
 */
function requestIdOf(host: ArgumentsHost): { requestId?: string } {
  const data: unknown = host.switchToRpc().getData();
  const requestId = (data as { ctx?: { requestId?: unknown } } | null)?.ctx?.requestId;
  return typeof requestId === 'string' ? { requestId } : {};
}

function describe(exception: unknown): { name?: string; message?: string; stack?: string } {
  if (exception instanceof Error) return { name: exception.name, message: exception.message, stack: exception.stack };
  return { message: String(exception) };
}
