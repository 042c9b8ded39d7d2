import { Module } from '@nestjs/common';
import { ComplaintConsumer } from './complaint-consumer';
import { ComplaintsRepository } from './complaints.repository';

@Module({ providers: [ComplaintsRepository, ComplaintConsumer] })
export class ComplaintsModule {}
