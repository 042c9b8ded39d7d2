import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { DomainError } from './domain-error';
import { ErrorCode, isErrorCode } from './error-code';

/** The shape an error takes on the wire between services. */
export interface RpcErrorPayload {
  code: ErrorCode;
  message: string;
}

export function toRpcErrorPayload(error: DomainError): RpcErrorPayload {
  return { code: error.code, message: error.message };
}

/**
 * Turns whatever a NATS request failed with back into a DomainError.
 * A payload without a known code is an internal failure of the other
 * service, and its text is not shown to API callers.
 */
export function fromRpcError(raw: unknown): DomainError {
  if (raw instanceof DomainError) return raw;
  // NATS answers a request nobody subscribes to with an empty "no responders"
  // status at once, rather than letting it time out: the service is down.
  if (raw instanceof EmptyResponseException) {
    return new DomainError(ErrorCode.ServiceUnavailable, 'The service that handles this request is not running; try again.');
  }
  if (raw && typeof raw === 'object' && isErrorCode((raw as RpcErrorPayload).code)) {
    const payload = raw as RpcErrorPayload;
    return new DomainError(payload.code, String(payload.message ?? ''));
  }
  return new DomainError(ErrorCode.InternalError, 'An internal error occurred.');
}
