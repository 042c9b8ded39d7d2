import { Module } from '@nestjs/common';
import { ReportsModule } from '../reports/reports.module';
import { BounceConsumer } from './bounce-consumer';
import { BouncesRepository } from './bounces.repository';

@Module({ imports: [ReportsModule], providers: [BouncesRepository, BounceConsumer] })
export class BouncesModule {}
