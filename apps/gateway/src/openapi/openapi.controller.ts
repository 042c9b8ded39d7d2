import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { Public } from '@mailroom/auth';
import { DomainError } from '@mailroom/errors';
import { TakesAnyQuery } from '../http/route-inputs';
import { DOCS_PAGE_POLICY } from '../http/security-headers';
import { docsAsset, DOCS_HTML } from './docs-page';
import { OpenApiDocumentService } from './openapi-document.service';
import { ExcludeFromOpenApi } from './route-discovery';

interface ReplyLike {
  header(name: string, value: string): ReplyLike;
  send(body: unknown): unknown;
}

/**
 * GET /openapi.json and the /docs page that renders it; both public. They take
 * any query: browsers, proxies and code generators append cache-busters.
 */
@Controller()
@Public()
@TakesAnyQuery()
export class OpenApiController {
  constructor(private readonly document: OpenApiDocumentService) {}

  @Get('openapi.json')
  json() {
    return this.document.get();
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', DOCS_PAGE_POLICY)
  page() {
    return DOCS_HTML;
  }

  @Get('docs/:asset')
  @ExcludeFromOpenApi()
  asset(@Param('asset') name: string, @Res() reply: ReplyLike) {
    const asset = docsAsset(name);
    if (!asset) throw DomainError.notFound('docs asset', name);
    reply.header('content-type', asset.contentType).header('cache-control', 'public, max-age=3600').send(asset.body);
  }
}
