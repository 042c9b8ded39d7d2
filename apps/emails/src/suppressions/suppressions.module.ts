import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SuppressionEntity } from '../database/entities/suppression.entity';
import { SuppressionsController } from './suppressions.controller';
import { SuppressionsRepository } from './suppressions.repository';
import { SuppressionsService } from './suppressions.service';

@Module({
  imports: [TypeOrmModule.forFeature([SuppressionEntity])],
  controllers: [SuppressionsController],
  providers: [SuppressionsRepository, SuppressionsService],
})
export class SuppressionsModule {}
