import { HttpException } from '@nestjs/common';
import { DomainError } from './domain-error';
import { ErrorCode } from './error-code';
import { withUnsafeEscaped } from './message-text';

/** Fastify's own error codes for bodies and paths it could not accept. */
const FRAMEWORK_CODES: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: ErrorCode.UnsupportedMediaType,
    message: 'Content-Type must be application/json.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: ErrorCode.PayloadTooLarge, message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: ErrorCode.InvalidJson, message: 'Content-Length does not match the body.' },
  // A path that cannot be routed names no resource: 404, as for an unknown route.
  FST_ERR_BAD_URL: { code: ErrorCode.NotFound, message: 'No route matches this path: it is not valid percent-encoded UTF-8.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: ErrorCode.NotFound, message: 'No route matches this path: a path segment is too long.' },
};

const CODE_BY_HTTP_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.InvalidJson,
  401: ErrorCode.Unauthorized,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  405: ErrorCode.MethodNotAllowed,
  408: ErrorCode.RequestTimeout,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
  414: ErrorCode.UriTooLong,
  431: ErrorCode.HeadersTooLarge,
  415: ErrorCode.UnsupportedMediaType,
  422: ErrorCode.ValidationError,
  429: ErrorCode.RateLimited,
  503: ErrorCode.ServiceUnavailable,
};

/**
 * Maps anything thrown while serving an HTTP request to a DomainError, or to
 * null when it is an unknown failure that must be logged and answered as
 * internal_error.
 */
export function toHttpDomainError(exception: unknown): DomainError | null {
  if (exception instanceof DomainError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return new DomainError(ErrorCode.NotFound, 'No route matches this method and path.');
    const code = CODE_BY_HTTP_STATUS[status];
    return code ? new DomainError(code, exception.message) : null;
  }
  const frameworkError = exception as { code?: string; statusCode?: number; message?: string } | null;
  if (frameworkError && typeof frameworkError === 'object') {
    const known = frameworkError.code ? FRAMEWORK_CODES[frameworkError.code] : undefined;
    if (known) return new DomainError(known.code, known.message);
    if (frameworkError.statusCode === 400 || exception instanceof SyntaxError) {
      return new DomainError(ErrorCode.InvalidJson, `The body is not valid JSON: ${withUnsafeEscaped(frameworkError.message ?? 'parse error')}.`);
    }
    const code = frameworkError.statusCode ? CODE_BY_HTTP_STATUS[frameworkError.statusCode] : undefined;
    if (code) return new DomainError(code, frameworkError.message ?? code);
  }
  return null;
}
