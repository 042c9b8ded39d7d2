import { ErrorCode, HTTP_STATUS_BY_CODE } from './error-code';
import { quotedForMessage } from './message-text';

/** The body every error answer carries. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

/**
 * The one error type services throw. It crosses NATS as `{ code, message }`
 * and becomes an HTTP answer at the gateway; nothing decides a status by
 * reading message text.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get httpStatus(): number {
    return HTTP_STATUS_BY_CODE[this.code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }

  static notFound(resource: string, id: string): DomainError {
    return new DomainError(ErrorCode.NotFound, `No ${resource} with id ${quotedForMessage(id)} exists.`);
  }

  static validation(field: string, problem: string): DomainError {
    return new DomainError(ErrorCode.ValidationError, `${field}: ${problem}`);
  }

  static forbidden(message: string): DomainError {
    return new DomainError(ErrorCode.Forbidden, message);
  }

  static conflict(message: string): DomainError {
    return new DomainError(ErrorCode.Conflict, message);
  }
}
