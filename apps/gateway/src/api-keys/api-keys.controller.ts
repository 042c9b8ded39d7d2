import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiKeyCreateDto, ApiKeyUpdateDto, LIST_ID_PREFIXES, ListQueryDto, RequestContext, toListParams, VerifiedApiKey } from '@mailroom/contracts';
import { CallerKey, Ctx, RequirePermission } from '@mailroom/auth';
import { CachedKeyVerifier } from '../auth/cached-key-verifier';
import { KeysClient } from '../clients/keys.client';

@Controller('v1/api-keys')
@RequirePermission('api-keys:*')
export class ApiKeysController {
  constructor(
    private readonly keys: KeysClient,
    private readonly verifier: CachedKeyVerifier,
  ) {}

  @Post()
  @HttpCode(201)
  create(@Ctx() ctx: RequestContext, @CallerKey() caller: VerifiedApiKey, @Body() body: ApiKeyCreateDto) {
    return this.keys.create(ctx, caller, body);
  }

  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListQueryDto) {
    return this.keys.list(ctx, toListParams(query, LIST_ID_PREFIXES.apiKey));
  }

  @Get(':id')
  get(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.keys.get(ctx, id);
  }

  @Patch(':id')
  async update(@Ctx() ctx: RequestContext, @CallerKey() caller: VerifiedApiKey, @Param('id') id: string, @Body() body: ApiKeyUpdateDto) {
    const updated = await this.keys.update(ctx, caller, id, body);
    this.verifier.evict(id); // this replica's next request sees the change; others hear api-key.changed
    return updated;
  }

  @Delete(':id')
  async delete(@Ctx() ctx: RequestContext, @CallerKey() caller: VerifiedApiKey, @Param('id') id: string) {
    const deleted = await this.keys.delete(ctx, caller, id);
    this.verifier.evict(id);
    return deleted;
  }
}
