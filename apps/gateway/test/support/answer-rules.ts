import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ErrorCode, HTTP_STATUS_BY_CODE } from '@mailroom/errors';
import { fieldName } from '@mailroom/contracts';
import type { ApiResponse } from '@mailroom/testing';
import type { JsonSchema } from './schema-arbitraries';

/** Statuses the document describes once for every operation (its introduction), not per operation. */
const ANY_OPERATION = new Set([405, 414, 431]);
const CODES = new Set<string>(Object.values(ErrorCode));

export interface SentRequest {
  /** `METHOD /path/{template}`, as the document keys it. */
  operation: string;
  url: string;
  bodyText?: string;
}

/**
 * The rules every answer of the API keeps, whatever was asked (README, Errors):
 * no 5xx; the status is one the operation documents; an error is exactly
 * `{error: {code, message}}` with a catalogued code of that status; a
 * validation error starts with the field it is about; and a success has the
 * documented shape. Returns what broke, or nothing.
 */
export class AnswerRules {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly validators = new Map<string, (value: unknown) => boolean>();

  constructor(private readonly doc: JsonSchema) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'mailroom', components: doc.components });
  }

  broken(sent: SentRequest, operation: JsonSchema, response: ApiResponse, fieldNames: Set<string>): string | null {
    const { status, body } = response;
    if (status >= 500) return `answered ${status}`;
    if (!operation.responses[String(status)] && !ANY_OPERATION.has(status)) return `answered ${status}, which the operation does not document`;
    const contentType = response.headers.get('content-type') ?? '';
    if (status >= 400) {
      if (!contentType.startsWith('application/json')) return `error answer with content-type ${contentType}`;
      if (!isErrorBody(body)) return 'error answer not {error: {code, message}}';
      if (HTTP_STATUS_BY_CODE[body.error.code as ErrorCode] !== status) return `code ${body.error.code} answered with ${status}`;
      if (status === 422 && !namesAField(body.error.message, fieldNames)) return `422 that names no field it was sent or reads`;
      return null;
    }
    const documented = operation.responses[String(status)]?.content?.['application/json']?.schema;
    if (!documented) return null;
    if (!contentType.startsWith('application/json') || typeof body !== 'object') return `success answer that is not JSON (${contentType})`;
    return this.validatorOf(sent.operation, status, documented)(body) ? null : `success answer off its documented schema: ${this.ajv.errorsText()}`;
  }

  private validatorOf(operation: string, status: number, schema: JsonSchema): (value: unknown) => boolean {
    const key = `${operation} ${status}`;
    if (!this.validators.has(key)) this.validators.set(key, this.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"mailroom#/components/'))));
    return this.validators.get(key)!;
  }
}

function isErrorBody(body: unknown): body is { error: { code: string; message: string } } {
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error') return false;
  const error = (body as { error: unknown }).error;
  if (typeof error !== 'object' || error === null || Object.keys(error).sort().join() !== 'code,message') return false;
  const { code, message } = error as Record<string, unknown>;
  return typeof code === 'string' && CODES.has(code) && typeof message === 'string' && message.length > 0;
}

/**
 * Whether a validation message starts with a field of the request: one it was
 * sent (a query parameter `tags[]` as written, even one holding ": ") or one
 * the operation reads, alone or at the top of a path (`emails[3].to: …`,
 * `headers.X-A: …`), written as messages write names (an empty one `""`, one
 * with control characters JSON-quoted).
 */
export function namesAField(message: string, fieldNames: Set<string>): boolean {
  return [...fieldNames].some((name) => {
    const written = fieldName(name);
    return message.startsWith(written) && [': ', '.', '['].some((next) => message.startsWith(next, written.length));
  });
}

/** Every property name a schema (through its references) can hold, at any depth: a field a message may name. */
export function propertyNamesOf(schema: unknown, components: Record<string, JsonSchema>, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const object = node as JsonSchema;
    if (typeof object.$ref === 'string') {
      const name = object.$ref.replace('#/components/schemas/', '');
      if (!seen.has(name)) {
        seen.add(name);
        walk(components[name]);
      }
    }
    if (object.properties) Object.keys(object.properties).forEach((name) => names.add(name));
    Object.values(object).forEach(walk);
  };
  walk(schema);
  return names;
}
