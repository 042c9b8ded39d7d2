import type { DataSource } from 'typeorm';
import type { DomainUsagePayload } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import type { EmailsRepository } from '../emails/emails.repository';
import { DomainUsageService } from './domain-usage.service';
import type { SendingDomainFence } from './sending-domain-fence';

describe(DomainUsageService.name, () => {
  it.each([[undefined], [42], ['']])('answers a request whose domainName is %p with a validation error naming it, touching nothing', async (domainName) => {
    const transaction = jest.fn();
    const service = new DomainUsageService({ transaction } as unknown as DataSource, {} as EmailsRepository, {} as SendingDomainFence);
    const answer = service.usage({ domainName, domainId: 'dom_1' } as unknown as DomainUsagePayload);
    await expect(answer).rejects.toBeInstanceOf(DomainError);
    await expect(answer).rejects.toMatchObject({ message: expect.stringMatching(/^domainName: /) });
    expect(transaction).not.toHaveBeenCalled();
  });
});
