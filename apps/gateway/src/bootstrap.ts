import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { TRACKING_TOKEN_MAX_LENGTH } from '@mailroom/auth';
import type { MailroomConfig } from '@mailroom/config';
import { sendHttpError } from '@mailroom/errors';
import { answerMalformedRequest, attachOpsServer, httpRequestDuration, PinoLogger } from '@mailroom/runtime';
import { GatewayAppModule } from './app.module';
import { RequestAdmission } from './auth/request-admission';
import { RouteRequirements } from './auth/route-requirements';
import { acceptEmptyJsonBody } from './http/accept-empty-json-body';
import { AllowedMethods } from './http/allowed-methods';
import { trackAnswersBeforeBody, wasAnsweredBeforeBody } from './http/answered-before-body';
import { closeKeepAliveOnShutdown, FASTIFY_CLOSING_OPTIONS } from './http/close-keep-alive-on-shutdown';
import { continueAfterAdmission } from './http/continue-after-admission';
import { assertExpectationMet, routeUnmetExpectations } from './http/expectations';
import { assertOneHostHeader } from './http/host-header';
import { refuseConnect } from './http/refuse-connect';
import { assertNoNulInPath } from './http/refuse-nul-in-path';
import { assertNoFragment } from './http/refuse-fragment';
import { refuseUnreadInput } from './http/refuse-unread-input';
import { addSecurityHeaders } from './http/security-headers';
import { assertRouted } from './http/refuse-unrouted';
import { dropForwardedForPorts } from './http/forwarded-for-ports';
import { assertJsonBody } from './http/require-json-body';
import { RouteInputs } from './http/route-inputs';
import { recordRegisteredRoutes, registeredRoutes } from './openapi/registered-routes';

/**
 * The only public HTTP port. Nest routes Fastify's own errors (bad JSON,
 * oversize body, unknown route) through the global filter too, so every
 * answer has the `{ error: { code, message } }` shape.
 */
export async function bootstrapGateway(config: MailroomConfig): Promise<NestFastifyApplication> {
  const logger = new Logger('Gateway');
  const adapter = new FastifyAdapter({
    // Paths Fastify cannot route (bad percent-encoding, an overlong segment) never reach Nest's filter.
    frameworkErrors: (error: Error, _request: unknown, reply: FastifyReply) => sendHttpError(reply, error, logger),
    // Requests that are not HTTP enough to reach a route (a bad header, a bad Content-Length).
    clientErrorHandler: (error, socket) => answerMalformedRequest(error, socket, wasAnsweredBeforeBody),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Tracking tokens carry the original link, so path parameters can be long; longer links are not rewritten.
    routerOptions: { maxParamLength: TRACKING_TOKEN_MAX_LENGTH },
    trustProxy: config.TRUSTED_PROXIES.length ? config.TRUSTED_PROXIES : false,
    logger: false,
    // Fastify turns Node's limit off: a client could announce a body and never finish it, holding the connection for ever.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: {
      // Node's own answer to an HTTP/1.1 request without Host is an empty 400; assertOneHostHeader answers it.
      requireHostHeader: false,
      // How often Node looks for requests past their time (30 s by default): a tenth of it, so one is cut within 110 %.
      connectionsCheckingInterval: Math.min(30_000, config.REQUEST_TIMEOUT_MS / 10),
      // Node enforces neither limit while the headers' (60 s by default) is longer than the request's.
      headersTimeout: Math.min(60_000, config.REQUEST_TIMEOUT_MS),
    },
    ...FASTIFY_CLOSING_OPTIONS,
  });
  const app = await NestFactory.create<NestFastifyApplication>(GatewayAppModule.forRoot(config), adapter, {
    logger: new PinoLogger('gateway', config.LOG_LEVEL),
    // The JSON parser is ours (acceptEmptyJsonBody); other media types are refused with 415 before parsing.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  acceptEmptyJsonBody(fastify);
  // Before listen(): Nest registers the routes then, and the OpenAPI test compares the document with them.
  recordRegisteredRoutes(fastify);
  const admission = app.get(RequestAdmission);
  // Declared, so every request object has the same shape (V8 keeps one hidden class).
  fastify.decorateRequest('mailroom', undefined);
  // Every route is registered by onReady; no request is served before it.
  let allowedMethods = new AllowedMethods([]);
  fastify.addHook('onReady', async () => {
    app.get(RouteRequirements).assertCovers(registeredRoutes(app));
    allowedMethods = new AllowedMethods(registeredRoutes(app));
  });
  // CONNECT reaches no route or hook: it is answered beside them, as a method the API does not take.
  refuseConnect(fastify.server, () => allowedMethods);
  // First of the onRequest hooks: a request that arrives while the gateway closes is turned away before its key is checked.
  closeKeepAliveOnShutdown(fastify, logger);
  // Before the body is read: who asks is settled before what they sent (README, "The rules, in order").
  const trustsProxies = config.TRUSTED_PROXIES.length > 0;
  fastify.addHook('onRequest', async (request, reply) => {
    // Before anything reads request.ip; a header no trusted proxy sent is never read, so it is left alone.
    if (trustsProxies) dropForwardedForPorts(request.raw.headers);
    try {
      assertOneHostHeader(request, reply);
      assertExpectationMet(request, reply);
      assertNoFragment(request, reply);
      assertNoNulInPath(request);
      assertRouted(request, reply, allowedMethods);
      await admission.admit(request, reply);
      assertJsonBody(request);
    } catch (error) {
      sendHttpError(reply, error, logger);
      return reply;
    }
  });
  const routeInputs = app.get(RouteInputs);
  // Once the body is parsed: what the handler would not read (a query parameter, a body field) is refused.
  fastify.addHook('preValidation', async (request, reply) => {
    try {
      refuseUnreadInput(request, routeInputs);
    } catch (error) {
      sendHttpError(reply, error, logger);
      return reply;
    }
  });
  addSecurityHeaders(fastify);
  continueAfterAdmission(fastify, config.BODY_LIMIT_BYTES);
  trackAnswersBeforeBody(fastify);
  routeUnmetExpectations(fastify);
  fastify.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the path, keeps the label set small (ids stay out).
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  // Closed on SIGTERM by runMain (closeOnSignals): Fastify's close answers the requests in flight first.
  try {
    await app.listen(config.PORT, config.HOST);
    await attachOpsServer(app, 'gateway', config);
  } catch (error) {
    // A port already taken: the NATS client and timers started with the app would keep the process (or a test run) alive.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
