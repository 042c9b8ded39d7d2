/** Every error code the API can answer with, and the one table that maps it to an HTTP status. */
export enum ErrorCode {
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  MethodNotAllowed = 'method_not_allowed',
  Conflict = 'conflict',
  InUse = 'in_use',
  IdempotencyKeyInUse = 'idempotency_key_in_use',
  ValidationError = 'validation_error',
  InvalidJson = 'invalid_json',
  UnsupportedMediaType = 'unsupported_media_type',
  PayloadTooLarge = 'payload_too_large',
  ExpectationFailed = 'expectation_failed',
  UriTooLong = 'uri_too_long',
  HeadersTooLarge = 'headers_too_large',
  RequestTimeout = 'request_timeout',
  RateLimited = 'rate_limited',
  InternalError = 'internal_error',
  ServiceUnavailable = 'service_unavailable',
}

export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  [ErrorCode.Unauthorized]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.MethodNotAllowed]: 405,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.InUse]: 409,
  [ErrorCode.IdempotencyKeyInUse]: 409,
  [ErrorCode.ValidationError]: 422,
  [ErrorCode.InvalidJson]: 400,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.ExpectationFailed]: 417,
  [ErrorCode.UriTooLong]: 414,
  [ErrorCode.HeadersTooLarge]: 431,
  [ErrorCode.RequestTimeout]: 408,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.InternalError]: 500,
  [ErrorCode.ServiceUnavailable]: 503,
};

const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && KNOWN_CODES.has(value);
}
