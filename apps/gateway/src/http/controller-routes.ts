import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';

export type Constructor = new (...args: never[]) => unknown;

/** One controller method at one path, as Nest registers it with Fastify. */
export interface ControllerRoute {
  controller: Constructor;
  prototype: object;
  handlerName: string;
  handler: (...args: unknown[]) => unknown;
  requestMethod: RequestMethod;
  /** Fastify's form: `/v1/domains/:id`. */
  path: string;
}

/** One parameter of a handler as a Nest decorator (@Body(), @Query('x'), …) recorded it. */
export interface RouteArg {
  index: number;
  /** The name given to the decorator (`@Body('field')`); undefined for the whole body or query. */
  data?: unknown;
}

/** The handler's parameters of one kind: its @Body()s, its @Query()s, its @Headers(name)s. */
export function routeArgsOf(route: Pick<ControllerRoute, 'controller' | 'handlerName'>, kind: RouteParamtypes): RouteArg[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.handlerName) ?? {}) as Record<string, RouteArg>;
  return Object.entries(args)
    .filter(([key]) => key.split(':')[0] === String(kind))
    .map(([, arg]) => arg);
}

/** How a route is looked up by method and Fastify pattern; HEAD is answered by the GET route, as Fastify does. */
const routeKey = (method: string, routePattern: string) => `${method === 'HEAD' ? 'GET' : method} ${routePattern}`;

/** Something known of each controller route, looked up as Fastify names a request's route (its method and pattern). */
export class RouteTable<T> {
  private readonly byRoute = new Map<string, T>();

  constructor(routes: ControllerRoute[], valueOf: (route: ControllerRoute) => T) {
    for (const route of routes) this.byRoute.set(routeKey(RequestMethod[route.requestMethod], route.path), valueOf(route));
  }

  /** undefined when no controller serves the route (Fastify's 404, or a route missed). */
  of(method: string, routePattern: string | undefined): T | undefined {
    return routePattern === undefined ? undefined : this.byRoute.get(routeKey(method, routePattern));
  }
}

/** `v1/domains` + `:id/verify` → `/v1/domains/:id/verify`, as Nest joins them (no trailing slash). */
export function joinRoutePath(controllerPath: string, handlerPath: string): string {
  return `/${controllerPath}/${handlerPath}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
}

function asPaths(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [typeof value === 'string' ? value : '/'];
}

/**
 * Every route of the running app's controllers, from Nest's own metadata, so
 * routes added by anyone are seen without a hand-kept list.
 */
export function controllerRoutes(discovery: DiscoveryService, scanner: MetadataScanner): ControllerRoute[] {
  const routes: ControllerRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as Constructor | undefined;
    if (!controller || !wrapper.instance) continue;
    const prototype = Object.getPrototypeOf(wrapper.instance) as Record<string, unknown>;
    for (const handlerName of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[handlerName] as (...args: unknown[]) => unknown;
      const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const handlerPath = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
      if (requestMethod === undefined || handlerPath === undefined) continue;
      for (const controllerPath of asPaths(Reflect.getMetadata(PATH_METADATA, controller))) {
        for (const path of asPaths(handlerPath)) {
          routes.push({ controller, prototype, handlerName, handler, requestMethod, path: joinRoutePath(controllerPath, path) });
        }
      }
    }
  }
  return routes;
}
