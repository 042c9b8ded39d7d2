/** A route as Fastify registered it: the ground truth the reference is checked against. */
export interface RegisteredRoute {
  method: string;
  url: string;
}

interface FastifyLike {
  addHook(name: 'onRoute', hook: (route: { method: string | string[]; url: string }) => void): unknown;
}

const registries = new WeakMap<object, RegisteredRoute[]>();

/** Call before the app initialises: records every route Fastify registers from then on. */
export function recordRegisteredRoutes(fastify: FastifyLike): void {
  const routes: RegisteredRoute[] = [];
  registries.set(fastify, routes);
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method: method.toUpperCase(), url: route.url });
  });
}

/** The routes recorded for this app's Fastify instance (tests compare them with /openapi.json). */
export function registeredRoutes(app: { getHttpAdapter(): { getInstance(): object } }): RegisteredRoute[] {
  return [...(registries.get(app.getHttpAdapter().getInstance()) ?? [])];
}
