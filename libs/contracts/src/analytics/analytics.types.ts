import type { RequestContext } from '../common/request-context';

export const ANALYTICS_METRICS = [
  'sent',
  'delivered',
  'bounced',
  'failed',
  'complained',
  'suppressed',
  'opens',
  'uniqueOpens',
  'clicks',
  'uniqueClicks',
] as const;

export type AnalyticsMetric = (typeof ANALYTICS_METRICS)[number];
export type AnalyticsCounts = Record<AnalyticsMetric, number>;

/** Over `sent`: the recipients a server took, an MX (also `delivered`) or a relay (never `delivered`). */
export interface AnalyticsRates {
  /** sent / (sent + bounced + failed) */
  deliveryRate: number;
  /** bounced / (sent + bounced + failed) */
  bounceRate: number;
  /** uniqueOpens / sent */
  openRate: number;
  /** uniqueClicks / sent */
  clickRate: number;
}

export interface AnalyticsParams {
  fromDate: string;
  toDate: string;
  interval: 'hour' | 'day';
  domain?: string;
  tags?: string[];
}

export interface AnalyticsQueryPayload {
  ctx: RequestContext;
  params: AnalyticsParams;
}

export interface AnalyticsResponse {
  object: 'analytics';
  fromDate: string;
  toDate: string;
  interval: 'hour' | 'day';
  totals: AnalyticsCounts & AnalyticsRates;
  series: (AnalyticsCounts & { start: string })[];
}

export const AnalyticsSubjects = {
  query: 'emails.analytics.query',
} as const;

export interface AnalyticsRpc {
  [AnalyticsSubjects.query]: { payload: AnalyticsQueryPayload; reply: AnalyticsResponse };
}
