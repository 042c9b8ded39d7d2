import type { RequestContext } from '@mailroom/contracts';
import { CALLER_GONE } from './caller-gone';
import { parseEmailInput } from './email-input.parser';
import type { EmailToStore, EmailWriter } from './email-writer';
import type { NewEmail } from './new-email.builder';
import { SendingDomainDeleted } from './sending-domain-deleted';
import { SingleSendCommitter } from './single-send.committer';

const NOW = new Date('2026-11-23T10:00:00.000Z');
const ctx: RequestContext = { requestId: 'req_1', keyId: 'key_live', mode: 'live', permissions: ['*'], domainRestrictions: [] };
const send = (domain: string, fromDomainId: string): EmailToStore => ({
  ctx,
  parsed: parseEmailInput({ from: `hi@${domain}`, to: 'a@example.com', subject: 'Hello', text: 'Hi' }, '', NOW),
  now: NOW,
  fromDomainId,
});

describe(SingleSendCommitter.name, () => {
  it('refuses only the send whose domain was deleted; the sends written with it are written again and accepted', async () => {
    // Like the write: refuses every email of a group holding one whose domain's deletion passed its check.
    const writeAtomically = jest.fn(async (emails: EmailToStore[]) => {
      const index = emails.findIndex((item) => item.fromDomainId === 'dom_gone');
      if (index >= 0) throw new SendingDomainDeleted(index, emails[index].parsed.from.domain);
      return emails.map((item) => ({ email: { fromAddress: item.parsed.from.address } }) as unknown as NewEmail);
    });
    const committer = new SingleSendCommitter({ writeAtomically } as unknown as EmailWriter);
    const [kept, gone, other] = await Promise.allSettled([
      committer.commit(send('kept.test', 'dom_kept')),
      committer.commit(send('gone.test', 'dom_gone')),
      committer.commit(send('other.test', 'dom_other')),
    ]);
    expect(writeAtomically.mock.calls[0][0]).toHaveLength(3);
    expect(kept).toMatchObject({ status: 'fulfilled' });
    expect(other).toMatchObject({ status: 'fulfilled' });
    expect(gone).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ domain: 'gone.test' }) });
  });

  it('rejects with 503 only the send the write left out because its caller stopped waiting; the others are accepted', async () => {
    // Like the write: it leaves out the email of a caller who gave up.
    const writeAtomically = jest.fn(async (emails: EmailToStore[]) =>
      emails.map((item) => (item.fromDomainId === 'dom_late' ? CALLER_GONE : ({ email: { fromAddress: item.parsed.from.address } } as unknown as NewEmail))),
    );
    const committer = new SingleSendCommitter({ writeAtomically } as unknown as EmailWriter);
    const [late, kept] = await Promise.allSettled([committer.commit(send('late.test', 'dom_late')), committer.commit(send('kept.test', 'dom_kept'))]);
    expect(writeAtomically).toHaveBeenCalledTimes(1);
    expect(late).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ code: 'service_unavailable' }) });
    expect(kept).toMatchObject({ status: 'fulfilled', value: { email: { fromAddress: 'hi@kept.test' } } });
  });
});
