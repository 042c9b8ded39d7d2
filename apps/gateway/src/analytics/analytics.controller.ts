import { Controller, Get, Query } from '@nestjs/common';
import { AnalyticsQueryDto, RequestContext } from '@mailroom/contracts';
import { Ctx, RequirePermission } from '@mailroom/auth';
import { DomainError } from '@mailroom/errors';
import { AnalyticsClient } from '../clients/analytics.client';

const THIRTY_DAYS_MS = 30 * 24 * 3_600_000;

@Controller('v1/analytics')
@RequirePermission('analytics:read')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsClient) {}

  @Get()
  query(@Ctx() ctx: RequestContext, @Query() query: AnalyticsQueryDto) {
    // The range check downstream would say "must be before to_date" to a caller who sent none.
    if (query.from_date && !query.to_date && Date.parse(query.from_date) >= Date.now()) {
      throw DomainError.validation('from_date', 'must be in the past when to_date is not given (it defaults to now)');
    }
    const toDate = query.to_date ?? new Date().toISOString();
    const fromDate = query.from_date ?? new Date(Date.parse(toDate) - THIRTY_DAYS_MS).toISOString();
    const tags = query.tags?.split(',');
    return this.analytics.query(ctx, { fromDate, toDate, interval: query.interval ?? 'day', domain: query.domain, tags });
  }
}
