import { Module } from '@nestjs/common';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsProjector } from './analytics-projector';
import { AnalyticsService } from './analytics.service';
import { CountersRepository } from './counters.repository';

@Module({ controllers: [AnalyticsController], providers: [CountersRepository, AnalyticsService, AnalyticsProjector] })
export class AnalyticsModule {}
