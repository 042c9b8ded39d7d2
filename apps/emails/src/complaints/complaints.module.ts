import { Module } from '@nestjs/common';
import { ReportsModule } from '../reports/reports.module';
import { ComplaintConsumer } from './complaint-consumer';
import { ComplaintsRepository } from './complaints.repository';

@Module({ imports: [ReportsModule], providers: [ComplaintsRepository, ComplaintConsumer] })
export class ComplaintsModule {}
