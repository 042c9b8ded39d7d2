import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { dtoSchemas } from './dto-schemas';
import { BODY_OVERRIDES } from './body-overrides';
import { operationKey } from './error-responses';
import { buildOpenApiDocument, OpenApiDocument } from './openapi-document';
import { discoverRoutes } from './route-discovery';

/** Builds the reference once, at boot, when every controller of the app is known. */
@Injectable()
export class OpenApiDocumentService implements OnApplicationBootstrap {
  private readonly logger = new Logger(OpenApiDocumentService.name);
  private document: OpenApiDocument | null = null;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const routes = discoverRoutes(this.discovery, this.scanner, this.reflector);
    for (const route of routes) {
      if (route.hasBody && !route.bodyType && !BODY_OVERRIDES[operationKey(route)]) {
        this.logger.warn(`${operationKey(route)} takes a body without a DTO class; the reference shows a generic object`);
      }
    }
    this.document = buildOpenApiDocument(routes, dtoSchemas());
  }

  get(): OpenApiDocument {
    if (!this.document) this.onApplicationBootstrap();
    return this.document!;
  }
}
