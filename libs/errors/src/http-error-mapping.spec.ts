import { BadRequestException, ForbiddenException, MethodNotAllowedException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { DomainError } from './domain-error';
import { ErrorCode, HTTP_STATUS_BY_CODE } from './error-code';
import { toHttpDomainError } from './http-error-mapping';
import { sendHttpError } from './http-exception.filter';

describe(toHttpDomainError.name, () => {
  it('maps every error code to the status the issue fixes', () => {
    expect(HTTP_STATUS_BY_CODE).toEqual({
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      method_not_allowed: 405,
      conflict: 409,
      in_use: 409,
      idempotency_key_in_use: 409,
      validation_error: 422,
      invalid_json: 400,
      unsupported_media_type: 415,
      payload_too_large: 413,
      expectation_failed: 417,
      uri_too_long: 414,
      headers_too_large: 431,
      request_timeout: 408,
      rate_limited: 429,
      internal_error: 500,
      service_unavailable: 503,
    });
  });

  it('passes a DomainError through', () => {
    const error = DomainError.validation('name', 'is required');
    expect(toHttpDomainError(error)).toBe(error);
    expect(error.toBody()).toEqual({ error: { code: 'validation_error', message: 'name: is required' } });
  });

  it('maps Nest HTTP exceptions by status: an unknown route is not_found, a wrong method method_not_allowed', () => {
    expect(toHttpDomainError(new NotFoundException('Cannot GET /x'))?.code).toBe(ErrorCode.NotFound);
    expect(toHttpDomainError(new MethodNotAllowedException())?.code).toBe(ErrorCode.MethodNotAllowed);
    expect(toHttpDomainError(new ForbiddenException())?.code).toBe(ErrorCode.Forbidden);
    expect(toHttpDomainError(new PayloadTooLargeException())?.code).toBe(ErrorCode.PayloadTooLarge);
    expect(toHttpDomainError(new BadRequestException())?.code).toBe(ErrorCode.InvalidJson);
  });

  it('maps Fastify body errors to 415, 413 and 400 invalid_json', () => {
    expect(toHttpDomainError({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 })?.code).toBe(ErrorCode.UnsupportedMediaType);
    expect(toHttpDomainError({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })?.code).toBe(ErrorCode.PayloadTooLarge);
    const syntax = Object.assign(new SyntaxError('Unexpected token'), { statusCode: 400 });
    expect(toHttpDomainError(syntax)?.code).toBe(ErrorCode.InvalidJson);
  });

  it("escapes the body's control characters a parser's message quotes", () => {
    const syntax = Object.assign(new SyntaxError('Unexpected token \'\u0001\', "\r\n\u0001" is not valid JSON'), { statusCode: 400 });
    expect(toHttpDomainError(syntax)?.message).toBe('The body is not valid JSON: Unexpected token \'\\u0001\', "\\r\\n\\u0001" is not valid JSON.');
  });

  it('returns null for unknown failures so they become internal_error', () => {
    expect(toHttpDomainError(new Error('database exploded'))).toBeNull();
    expect(toHttpDomainError('a string')).toBeNull();
    expect(toHttpDomainError(null)).toBeNull();
  });
});

describe(sendHttpError.name, () => {
  function capture(exception: unknown) {
    const sent: { status?: number; body?: any; headers: Record<string, string> } = { headers: {} };
    const reply = {
      status(code: number) {
        sent.status = code;
        return reply;
      },
      header(name: string, value: string) {
        sent.headers[name] = value;
        return reply;
      },
      send(body: unknown) {
        sent.body = body;
      },
    };
    const logged: unknown[] = [];
    sendHttpError(reply, exception, { error: (entry: unknown) => logged.push(entry) } as never);
    return { sent, logged };
  }

  it('answers an unknown failure with 500 internal_error and an error id, without its stack or message', () => {
    const { sent, logged } = capture(new Error('password=hunter2 at Foo.bar (/app/x.js:1:1)'));
    expect(sent.status).toBe(500);
    expect(sent.body).toEqual({ error: { code: 'internal_error', message: expect.stringMatching(/error id [0-9a-f-]{36}/) } });
    expect(JSON.stringify(sent.body)).not.toMatch(/hunter2|x\.js|stack/);
    expect(logged).toHaveLength(1);
  });

  it('answers a DomainError with its mapped status and body', () => {
    const { sent, logged } = capture(new DomainError(ErrorCode.ServiceUnavailable, 'keys did not answer'));
    expect(sent.status).toBe(503);
    expect(sent.body).toEqual({ error: { code: 'service_unavailable', message: 'keys did not answer' } });
    expect(sent.headers['content-type']).toMatch(/application\/json/);
    expect(logged).toHaveLength(0);
  });
});
