import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteInBatches } from '@mailroom/database';
import { StsMode, StsPolicy } from './sts-policy';

/** A policy as cached: what its `_mta-sts` record's id was when it was fetched. */
export interface CachedStsPolicy extends StsPolicy {
  policyId: string;
}

/** A cached policy as read back: when it was last fetched (or refreshed), which decides when it is refreshed. */
export interface StoredStsPolicy extends CachedStsPolicy {
  fetchedAt: Date;
}

/** Where fetched policies are kept between deliveries and across restarts (StsPolicies reads and writes it). */
export interface StsPolicyStore {
  /** The domain's policy while its max_age has not run out, or null. */
  find(domain: string): Promise<StoredStsPolicy | null>;
  /** Keeps the policy as fetched now, for its max_age from now (a refresh under the same id extends its life). */
  save(domain: string, policy: CachedStsPolicy): Promise<void>;
}

interface PolicyRow {
  policy_id: string;
  mode: StsMode;
  mx: string[];
  max_age: number;
  fetched_at: Date;
}

/** emails.mta_sts_policies: one row per recipient domain whose policy was fetched, until it expires. */
@Injectable()
export class MtaStsRepository implements StsPolicyStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(domain: string): Promise<StoredStsPolicy | null> {
    const rows: PolicyRow[] = await this.dataSource.query(
      'SELECT policy_id, mode, mx, max_age, fetched_at FROM emails.mta_sts_policies WHERE domain = $1 AND expires_at > now()',
      [domain],
    );
    if (!rows.length) return null;
    const [row] = rows;
    return { policyId: row.policy_id, mode: row.mode, mx: row.mx, maxAgeSeconds: row.max_age, fetchedAt: row.fetched_at };
  }

  async save(domain: string, policy: CachedStsPolicy): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO emails.mta_sts_policies (domain, policy_id, mode, mx, max_age, fetched_at, expires_at)
       VALUES ($1, $2, $3, $4, $5::integer, now(), now() + make_interval(secs => $5::integer))
       ON CONFLICT (domain) DO UPDATE SET policy_id = excluded.policy_id, mode = excluded.mode, mx = excluded.mx,
         max_age = excluded.max_age, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`,
      [domain, policy.policyId, policy.mode, policy.mx, policy.maxAgeSeconds],
    );
  }

  /** Drops the policies whose max_age has run out: find() no longer reads them. */
  purgeExpired(): Promise<number> {
    return deleteInBatches(this.dataSource, { table: 'emails.mta_sts_policies', key: 'domain', orderBy: 'expires_at', where: 'expires_at <= now()', parameters: [] });
  }
}
