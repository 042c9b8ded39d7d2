import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Permission } from '@mailroom/contracts';
import { requiredPermission } from '@mailroom/auth';
import { controllerRoutes, RouteTable } from '../http/controller-routes';
import type { RegisteredRoute } from '../openapi/registered-routes';

/** null: the route is public. */
export type RouteRequirement = Permission | null;

/**
 * The permission each route needs, by method and Fastify route pattern, so a
 * Fastify hook can authorise a request before its body is read; Nest's guard
 * only learns the route (its ExecutionContext) after parsing. Read through
 * requiredPermission, as the guard reads it, so the two cannot disagree.
 */
@Injectable()
export class RouteRequirements implements OnModuleInit {
  /** Read once the app's modules are initialised, before Fastify serves a request. */
  private routes?: RouteTable<RouteRequirement>;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    this.routes = new RouteTable(controllerRoutes(this.discovery, this.scanner), (route) => requiredPermission(this.reflector, route.handler, route.controller));
  }

  /** undefined when no controller serves the route (Fastify's 404, or a route this map missed). */
  of(method: string, routePattern: string | undefined): RouteRequirement | undefined {
    return this.routes?.of(method, routePattern);
  }

  /**
   * Fails the boot when Fastify serves a route this map does not know: such a
   * route would be authenticated only by the guard, after its body is read.
   */
  assertCovers(registered: RegisteredRoute[]): void {
    const unknown = registered.filter((route) => this.of(route.method, route.url) === undefined);
    if (unknown.length) {
      throw new Error(`No permission is known for ${unknown.map((route) => `${route.method} ${route.url}`).join(', ')}; RouteRequirements must read the routes as Nest registers them.`);
    }
  }
}
