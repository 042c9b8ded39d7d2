import { Module } from '@nestjs/common';
import { AppliedEventsPurger } from './applied-events.purger';
import { AppliedEventsRepository } from './applied-events.repository';

/** What the consumers of reported complaints and bounces share: the record of the events they applied, and its purge. */
@Module({ providers: [AppliedEventsRepository, AppliedEventsPurger], exports: [AppliedEventsRepository] })
export class ReportsModule {}
