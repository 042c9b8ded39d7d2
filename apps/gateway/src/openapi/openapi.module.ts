import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { OpenApiController } from './openapi.controller';
import { OpenApiDocumentService } from './openapi-document.service';

/** The API reference, generated from the running app's routes and DTOs. */
@Module({
  imports: [DiscoveryModule],
  controllers: [OpenApiController],
  providers: [OpenApiDocumentService],
})
export class OpenApiModule {}
