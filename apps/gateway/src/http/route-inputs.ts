import { Injectable, OnModuleInit, SetMetadata } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ControllerRoute, controllerRoutes, routeArgsOf, RouteTable } from './controller-routes';

const TAKES_ANY_QUERY = 'mailroom:takes-any-query';

/**
 * For routes whose URLs leave the API's hands (the tracking links in sent
 * mail): a parameter a mail client, a link scanner or a marketing tool
 * appended is nobody's typo, and refusing it would break the link.
 */
export const TakesAnyQuery = () => SetMetadata(TAKES_ANY_QUERY, true);

/** Whether the route, or its controller, is marked @TakesAnyQuery(). */
export const takesAnyQuery = (reflector: Reflector, route: Pick<ControllerRoute, 'handler' | 'controller'>): boolean =>
  reflector.getAllAndOverride<boolean>(TAKES_ANY_QUERY, [route.handler, route.controller]) ?? false;

/** What a route reads besides its path: whether its handler takes a @Body(), and whether its query is checked by a DTO or left free. */
export interface RouteInput {
  readsBody: boolean;
  /** A @Query() DTO (which refuses unknown parameters itself) or @TakesAnyQuery(). */
  queryHandled: boolean;
  /** A @Query() DTO: the handler reads the query (a @TakesAnyQuery() route ignores it). */
  readsQuery: boolean;
}

/**
 * The inputs of each route by method and Fastify route pattern, read from
 * the handlers' decorators, so a Fastify hook can refuse what no handler
 * would read (refuseUnreadInput).
 */
@Injectable()
export class RouteInputs implements OnModuleInit {
  /** Read once the app's modules are initialised, before Fastify serves a request. */
  private routes?: RouteTable<RouteInput>;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    this.routes = new RouteTable(controllerRoutes(this.discovery, this.scanner), (route) => this.inputOf(route));
  }

  /** undefined for a request no controller route serves. */
  of(method: string, routePattern: string | undefined): RouteInput | undefined {
    return this.routes?.of(method, routePattern);
  }

  private inputOf(route: ControllerRoute): RouteInput {
    const readsQuery = routeArgsOf(route, RouteParamtypes.QUERY).length > 0;
    return {
      readsBody: routeArgsOf(route, RouteParamtypes.BODY).length > 0,
      queryHandled: readsQuery || takesAnyQuery(this.reflector, route),
      readsQuery,
    };
  }
}
