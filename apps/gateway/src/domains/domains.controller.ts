import { Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { DomainCreateDto, DomainListQueryDto, DomainUpdateDto, LIST_ID_PREFIXES, RequestContext, toListParams } from '@mailroom/contracts';
import { Ctx, RequirePermission } from '@mailroom/auth';
import { DomainsClient } from '../clients/domains.client';

@Controller('v1/domains')
@RequirePermission('domains:*')
export class DomainsController {
  constructor(private readonly domains: DomainsClient) {}

  @Post()
  @HttpCode(201)
  create(@Ctx() ctx: RequestContext, @Body() body: DomainCreateDto) {
    return this.domains.create(ctx, body);
  }

  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: DomainListQueryDto) {
    return this.domains.list(ctx, toListParams(query, LIST_ID_PREFIXES.domain), query.status);
  }

  /** The DKIM zone as an RFC 1035 zone file. Declared before `:id`, which would otherwise take `dkim-zone` for an id. */
  @Get('dkim-zone')
  @Header('content-type', 'text/plain; charset=utf-8')
  async dkimZone(@Ctx() ctx: RequestContext): Promise<string> {
    return (await this.domains.zoneExport(ctx)).zoneFile;
  }

  @Get(':id')
  get(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.domains.get(ctx, id);
  }

  @Patch(':id')
  update(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: DomainUpdateDto) {
    return this.domains.update(ctx, id, body);
  }

  /** Looks the records up in DNS now; 200 whether or not they are all there (the body says which). */
  @Post(':id/verify')
  @HttpCode(200)
  verify(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.domains.verify(ctx, id);
  }

  /** A new DKIM key under a new selector, pending until its CNAME is found; 200 with the domain (its dkimRotation). */
  @Post(':id/dkim/rotate')
  @HttpCode(200)
  rotateDkim(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.domains.rotateDkim(ctx, id);
  }

  @Delete(':id')
  delete(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.domains.delete(ctx, id);
  }
}
