import { DomainError } from '@mailroom/errors';

/**
 * A send found its domain verified, but the domain's deletion passed its
 * in-use check before the send came to write (SendingDomainFence). Thrown by
 * the write, which knows the email's place in what it writes but not the
 * request field naming it.
 */
export class SendingDomainDeleted extends Error {
  constructor(
    /** The first such email's index among those written together. */
    readonly index: number,
    readonly domain: string,
  ) {
    super(`The domain ${domain} was deleted as an email from it was being written`);
  }

  /** The 422 a send from a domain it does not know gets, naming the field and saying what happened. */
  toValidationError(field: string): DomainError {
    return DomainError.validation(field, `the domain '${this.domain}' is no longer a sending domain of this account: it was deleted as this email was being sent`);
  }
}

/** The promise's failure, as the 422 naming the field of the email whose domain was deleted. */
export async function refusingDeletedDomains<T>(promise: Promise<T>, fieldOf: (index: number) => string): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw error instanceof SendingDomainDeleted ? error.toValidationError(fieldOf(error.index)) : error;
  }
}
