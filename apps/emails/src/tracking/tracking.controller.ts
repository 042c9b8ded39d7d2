import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { TrackingHitPayload, TrackingHitReply, TrackingSubjects } from '@mailroom/contracts';
import { TrackingRepository } from './tracking.repository';

@Controller()
export class TrackingController {
  constructor(private readonly tracking: TrackingRepository) {}

  @MessagePattern(TrackingSubjects.open)
  async open(@Payload() { emailId, userAgent, ip }: TrackingHitPayload): Promise<TrackingHitReply> {
    return { recorded: await this.tracking.record('open', emailId, { userAgent, ip }) };
  }

  @MessagePattern(TrackingSubjects.click)
  async click(@Payload() { emailId, url, userAgent, ip }: TrackingHitPayload): Promise<TrackingHitReply> {
    return { recorded: await this.tracking.record('click', emailId, { url: url ?? null, userAgent, ip }) };
  }
}
