import { fieldPath } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { assertQueryIsUtf8 } from './refuse-non-utf8-query';
import type { RouteInputs } from './route-inputs';

interface ParsedRequest {
  method: string;
  url: string;
  routeOptions: { url?: string };
  query: unknown;
  body: unknown;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Unknown fields are refused everywhere, so a typo does not silently do
 * nothing: a route with a query DTO or a body DTO already refuses them
 * (validateDto), and this refuses them, in the same words, where the handler
 * has no DTO to do it: a query parameter on `GET /v1/emails/{id}` or
 * `DELETE /v1/domains/{id}`, a JSON body with fields on a route that takes
 * none. An empty body or `{}` carries nothing and passes, for clients that
 * send one on every request. GET and HEAD bodies are never read (Fastify does
 * not parse them), so only their media type is checked (assertJsonBody).
 * Runs once the body is parsed, before the handler.
 */
export function refuseUnreadInput(request: ParsedRequest, inputs: RouteInputs): void {
  const route = inputs.of(request.method, request.routeOptions.url);
  if (!route) return;
  // Where the handler reads the query, what it reads must be what was sent.
  if (route.readsQuery) assertQueryIsUtf8(request.url);
  if (!route.queryHandled && isPlainObject(request.query)) {
    const [name] = Object.keys(request.query);
    if (name !== undefined) throw DomainError.validation(fieldPath('', name), 'is not a known field');
  }
  if (route.readsBody || request.body === undefined) return;
  if (!isPlainObject(request.body)) throw DomainError.validation('body', 'this operation takes no body; send none, or {}');
  const [field] = Object.keys(request.body);
  if (field !== undefined) throw DomainError.validation(fieldPath('', field), 'is not a known field');
}
