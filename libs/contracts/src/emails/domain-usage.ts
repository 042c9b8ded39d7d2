/** Asked by the domains service before deleting a domain: is mail from it still on its way? */
export interface DomainUsagePayload {
  domainName: string;
}

export interface DomainUsageReply {
  /** Live emails from the domain that are queued, scheduled or being delivered (test mode never uses a domain). */
  activeEmails: number;
}

export const DOMAIN_USAGE_SUBJECT = 'emails.domain.usage' as const;
