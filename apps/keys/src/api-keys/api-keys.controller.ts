import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  ApiKeyByIdPayload,
  ApiKeyCreatePayload,
  ApiKeyDeletePayload,
  ApiKeyListPayload,
  ApiKeysUsedEvent,
  ApiKeyUpdatePayload,
  ApiKeyVerifyPayload,
  KeysEvents,
  KeysSubjects,
} from '@mailroom/contracts';
import { ApiKeysService } from './api-keys.service';

@Controller()
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @MessagePattern(KeysSubjects.create)
  create(@Payload() payload: ApiKeyCreatePayload) {
    return this.apiKeys.create(payload);
  }

  @MessagePattern(KeysSubjects.list)
  list(@Payload() { ctx, params }: ApiKeyListPayload) {
    return this.apiKeys.list(ctx, params);
  }

  @MessagePattern(KeysSubjects.get)
  get(@Payload() { ctx, id }: ApiKeyByIdPayload) {
    return this.apiKeys.get(ctx, id);
  }

  @MessagePattern(KeysSubjects.update)
  update(@Payload() payload: ApiKeyUpdatePayload) {
    return this.apiKeys.update(payload);
  }

  @MessagePattern(KeysSubjects.delete)
  delete(@Payload() payload: ApiKeyDeletePayload) {
    return this.apiKeys.delete(payload);
  }

  @MessagePattern(KeysSubjects.verify)
  verify(@Payload() { keyHash }: ApiKeyVerifyPayload) {
    return this.apiKeys.verify(keyHash);
  }

  @MessagePattern(KeysSubjects.recordUses)
  async recordUses(@Payload() uses: ApiKeysUsedEvent) {
    await this.apiKeys.markUsed(uses);
    return { recorded: uses.keyIds.length };
  }

  /** From a gateway of an earlier release, during a rolling upgrade. */
  @EventPattern(KeysEvents.used)
  used(@Payload() event: ApiKeysUsedEvent) {
    return this.apiKeys.markUsed(event);
  }
}
