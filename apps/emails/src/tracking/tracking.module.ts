import { Module } from '@nestjs/common';
import { TrackingController } from './tracking.controller';
import { TrackingRepository } from './tracking.repository';

@Module({ controllers: [TrackingController], providers: [TrackingRepository] })
export class TrackingModule {}
