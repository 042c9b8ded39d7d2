import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
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
