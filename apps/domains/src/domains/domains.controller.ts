import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DkimZoneExportPayload,
  DomainByIdPayload,
  DomainCreatePayload,
  DomainListPayload,
  DomainsSubjects,
  DomainUpdatePayload,
  SenderIdentityPayload,
} from '@mailroom/contracts';
import { SenderIdentityService } from '../sender-identity/sender-identity.service';
import { VerificationService } from '../verification/verification.service';
import { DkimRotationService } from '../dkim-rotation/dkim-rotation.service';
import { DkimZoneService } from '../dkim-zone/dkim-zone.service';
import { DomainsService } from './domains.service';

@Controller()
export class DomainsController {
  constructor(
    private readonly domains: DomainsService,
    private readonly verification: VerificationService,
    private readonly senderIdentity: SenderIdentityService,
    private readonly dkimZone: DkimZoneService,
    private readonly dkimRotation: DkimRotationService,
  ) {}

  @MessagePattern(DomainsSubjects.create)
  create(@Payload() payload: DomainCreatePayload) {
    return this.domains.create(payload);
  }

  @MessagePattern(DomainsSubjects.list)
  list(@Payload() payload: DomainListPayload) {
    return this.domains.list(payload);
  }

  @MessagePattern(DomainsSubjects.get)
  get(@Payload() { ctx, id }: DomainByIdPayload) {
    return this.domains.get(ctx, id);
  }

  @MessagePattern(DomainsSubjects.update)
  update(@Payload() payload: DomainUpdatePayload) {
    return this.domains.update(payload);
  }

  @MessagePattern(DomainsSubjects.verify)
  verify(@Payload() { ctx, id }: DomainByIdPayload) {
    return this.verification.verify(ctx, id);
  }

  @MessagePattern(DomainsSubjects.rotateDkim)
  rotateDkim(@Payload() { ctx, id }: DomainByIdPayload) {
    return this.dkimRotation.rotate(ctx, id);
  }

  @MessagePattern(DomainsSubjects.delete)
  delete(@Payload() { ctx, id }: DomainByIdPayload) {
    return this.domains.delete(ctx, id);
  }

  @MessagePattern(DomainsSubjects.senderIdentity)
  senderIdentityFor(@Payload() payload: SenderIdentityPayload) {
    return this.senderIdentity.find(payload);
  }

  @MessagePattern(DomainsSubjects.zoneExport)
  zoneExport(@Payload() payload: DkimZoneExportPayload) {
    return this.dkimZone.exportZone(payload?.ctx);
  }
}
