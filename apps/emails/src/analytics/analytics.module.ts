import { DynamicModule, Module } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { backgroundOnly } from '../process-role';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsProjector } from './analytics-projector';
import { AnalyticsService } from './analytics.service';
import { CountersRepository } from './counters.repository';

/** The analytics queries, and (in a process that does background work) the projector that counts events into them. */
@Module({})
export class AnalyticsModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: AnalyticsModule,
      controllers: [AnalyticsController],
      providers: [CountersRepository, AnalyticsService, ...backgroundOnly(config, [AnalyticsProjector])],
    };
  }
}
