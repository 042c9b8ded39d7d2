import type { ListParams } from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';

/**
 * A page travels back from its service as one NATS message. A page larger
 * than the server's max_payload (1 MB unless raised: 100 API keys with 100
 * long domainRestrictions each, 100 emails with 50 long addresses each) is
 * answered payload_too_large at once, and is asked for again with half the
 * limit, down to one item. A page may so hold fewer items than `limit`, which
 * the cursors allow: hasMore still says whether more follow. Every list goes
 * through here, so none answers 413 where another pages on.
 */
export async function pageThatFits<T>(params: ListParams, request: (page: ListParams) => Promise<T>): Promise<T> {
  for (let limit = params.limit; ; limit = Math.ceil(limit / 2)) {
    try {
      return await request({ limit, startingAfter: params.startingAfter, endingBefore: params.endingBefore });
    } catch (error) {
      if (limit === 1 || !(error instanceof DomainError) || error.code !== ErrorCode.PayloadTooLarge) throw error;
    }
  }
}
