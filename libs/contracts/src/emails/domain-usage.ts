/** Asked by the domains service before deleting a domain: is mail from it still on its way? */
export interface DomainUsagePayload {
  domainName: string;
  /**
   * The domain's id: when nothing is on its way, the emails service records it as deleted, so a send that
   * found it verified just before is refused. Absent from domains replicas older than it (counted only).
   */
  domainId?: string;
  /**
   * How long the domains service waits for the answer. The check gives up within half of it, recording nothing:
   * a deletion recorded after the domains service gave up (503, nothing deleted) would refuse the domain's sends.
   */
  answerWithinMs?: number;
}

export interface DomainUsageReply {
  /** Live emails from the domain that are queued, scheduled or being delivered (test mode never uses a domain). */
  activeEmails: number;
}

export const DOMAIN_USAGE_SUBJECT = 'emails.domain.usage' as const;
