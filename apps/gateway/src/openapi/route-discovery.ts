import { RequestMethod, SetMetadata } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { requiredPermission } from '@mailroom/auth';
import { Constructor, ControllerRoute, controllerRoutes, joinRoutePath, RouteArg, routeArgsOf } from '../http/controller-routes';
import { takesAnyQuery } from '../http/route-inputs';

export const EXCLUDE_FROM_OPENAPI = 'mailroom:openapi-exclude';

/** Leaves a route out of the reference (the /docs page's static assets). */
export const ExcludeFromOpenApi = () => SetMetadata(EXCLUDE_FROM_OPENAPI, true);

/** One controller route as Nest will register it, with what the document needs to describe it. */
export interface DiscoveredRoute {
  /** Lower-case HTTP method, as OpenAPI keys operations. */
  method: string;
  /** OpenAPI form: `/v1/domains/{id}`. */
  path: string;
  controller: string;
  handler: string;
  /** Null for public routes; `*` when a route names none (the guard fails closed). */
  permission: string | null;
  successStatus: number;
  /** The @Body() parameter's declared class, when it is one (not `unknown`/`object`). */
  bodyType: Constructor | null;
  /** Whether the handler takes a @Body() at all, class or not. */
  hasBody: boolean;
  queryType: Constructor | null;
  /** Unknown query parameters are let through (@TakesAnyQuery()), not refused with 422. */
  takesAnyQuery: boolean;
  pathParams: string[];
  headerParams: string[];
  /** The JSDoc-free summary: `ControllerName.handler`, used for operationId. */
  operationId: string;
}

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Object, Array, Promise, undefined]);

/** Fastify's `/v1/domains/:id` → OpenAPI's `/v1/domains/{id}`. */
const asOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}');

/** `v1/domains` + `:id/verify` → `/v1/domains/{id}/verify`. */
export function toOpenApiPath(controllerPath: string, handlerPath: string): string {
  return asOpenApiPath(joinRoutePath(controllerPath, handlerPath));
}

/** Every controller route of the running app but those left out of the reference, described for it. */
export function discoverRoutes(discovery: DiscoveryService, scanner: MetadataScanner, reflector: Reflector): DiscoveredRoute[] {
  return controllerRoutes(discovery, scanner)
    .filter((route) => !reflector.getAllAndOverride<boolean>(EXCLUDE_FROM_OPENAPI, [route.handler, route.controller]))
    .map((route) => describeRoute(route, asOpenApiPath(route.path), reflector))
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

function describeRoute(route: ControllerRoute, path: string, reflector: Reflector): DiscoveredRoute {
  const { controller, prototype, handlerName, handler, requestMethod } = route;
  const method = RequestMethod[requestMethod].toLowerCase();
  const permission = requiredPermission(reflector, handler, controller);
  const explicitStatus = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  const paramTypes = (Reflect.getMetadata('design:paramtypes', prototype, handlerName) ?? []) as unknown[];
  const byKind = (kind: RouteParamtypes) => routeArgsOf(route, kind);
  const classOf = (arg: RouteArg | undefined): Constructor | null => {
    // @Body('field') takes one field, not the DTO; only a whole-body class is described.
    if (!arg || arg.data !== undefined) return null;
    const type = paramTypes[arg.index];
    return typeof type === 'function' && !PRIMITIVES.has(type) ? (type as Constructor) : null;
  };
  const bodies = byKind(RouteParamtypes.BODY);
  const fromPattern = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  return {
    method,
    path,
    controller: controller.name,
    handler: handlerName,
    permission,
    successStatus: explicitStatus ?? (method === 'post' ? 201 : 200),
    bodyType: classOf(bodies[0]),
    hasBody: bodies.length > 0,
    queryType: classOf(byKind(RouteParamtypes.QUERY)[0]),
    takesAnyQuery: takesAnyQuery(reflector, route),
    pathParams: fromPattern,
    headerParams: byKind(RouteParamtypes.HEADERS)
      .map((arg) => arg.data)
      .filter((name): name is string => typeof name === 'string'),
    operationId: `${controller.name.replace(/Controller$/, '')}_${handlerName}`,
  };
}
