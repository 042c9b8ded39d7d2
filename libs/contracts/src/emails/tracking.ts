/** Opens and clicks recorded by the emails service, reported by the gateway's public tracking routes. */
export const TrackingSubjects = {
  open: 'emails.tracking.open',
  click: 'emails.tracking.click',
} as const;

export interface TrackingHitPayload {
  emailId: string;
  /** click only: the link that was followed. */
  url?: string;
  userAgent: string | null;
  ip: string | null;
}

export interface TrackingHitReply {
  recorded: boolean;
}

export interface TrackingRpc {
  [TrackingSubjects.open]: { payload: TrackingHitPayload; reply: TrackingHitReply };
  [TrackingSubjects.click]: { payload: TrackingHitPayload; reply: TrackingHitReply };
}
