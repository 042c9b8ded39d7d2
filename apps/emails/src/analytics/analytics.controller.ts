import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AnalyticsQueryPayload, AnalyticsSubjects } from '@mailroom/contracts';
import { AnalyticsService } from './analytics.service';

@Controller()
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @MessagePattern(AnalyticsSubjects.query)
  query(@Payload() payload: AnalyticsQueryPayload) {
    return this.analytics.query(payload);
  }
}
