/**
 * The advisory lock class of the per-domain lock a live send's insert and a
 * deletion's in-use check take: pg_advisory_xact_lock(class, hashtext(domain name)).
 * The two-key form never meets the one-key locks of migrations and count folds.
 */
export const SENDING_DOMAIN_LOCK_CLASS = 0x6d72_6464;
